/**
 * The console's one page: an empty frame its script fills. No inline script or style, nothing
 * from another origin; the CSP below says so to the browser.
 */
export const CONSOLE_PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Console</title>
<link rel="stylesheet" href="/console/console.css">
<script src="/console/console.js" defer></script>
</head>
<body>
<a class="skip" href="#main">Skip to the content</a>
<div id="app"><main id="main" tabindex="-1"><h1>Console</h1><noscript><p>The console needs JavaScript.</p></noscript></main></div>
</body>
</html>
`;

/**
 * The console's CSP: its own script and styles only (no inline script, no eval, no inline
 * style), API calls to its own origin, images from its own origin or the user data's `data:`
 * URLs (and https: for the pre-signed S3 URLs of images past the user data's size budget), no
 * frames, no forms posted anywhere, no <base>.
 */
export const CONSOLE_CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: https:; connect-src 'self'; " +
  "form-action 'none'; base-uri 'none'; frame-ancestors 'none'";

/** The console uses no camera, microphone or location. */
export const CONSOLE_PERMISSIONS = 'camera=(), microphone=(), geolocation=(), payment=(), usb=()';
