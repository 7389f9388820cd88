import { type ActivitySpec } from '../spec.js';

export const spec = {
  type: 'REDIRECT_USER_V2',
  displayName: 'Redirect User V2',
  kind: 'service',
  description:
    "Sends the end user's browser to a URL built from the journey's data, under the rule the process token's `_redirectUrl` follows " +
    '(an absolute http(s) URL; one written without a scheme, `www.example.com/back`, is taken as https). The journey goes on: the step ' +
    'records the redirect, and the journey page sends the browser there while the journey has no step the end user acts on (a wait, or ' +
    'its end), until a later step is finished.',
  inputs: [
    {
      name: 'Redirect URL',
      type: 'S',
      required: true,
      template: true,
      description:
        'Text with embedded `${...}` expressions in the family\'s JUEL subset, each evaluated when the step runs (a missing value is empty text): ' +
        '`${idv.config._redirectUrl > "" ? idv.config._redirectUrl : "www.example.com"}&ref=${otpRef}`. `idv.config` reads the process ' +
        "token's parameters when the journey has no variable of that name.",
      family: { name: 'redirectUrl' },
    },
  ],
  rules: [],
  outputs: [{ name: 'Redirect', variable: '_redirect', description: '{url, at}: the URL the end user is sent to, and when it was recorded.' }],
  errorEvents: [],
  // The URL built is not one the service sends a browser to (a javascript: or data: URL, a relative
  // one, credentials, over 2048 characters); an expression in Redirect URL does not parse or cannot be evaluated.
  failures: ['RedirectUrlNotAllowed', 'RedirectUrlExpressionInvalid'],
  family: { palette: 'RDU02', beans: ['redirectUserV2'] },
} as const satisfies ActivitySpec;
