/**
 * The hosted pages' own look: what a palette leaves out. Passes every check of palette.ts
 * (CONTRAST_PAIRS), which gives it its type (ResolvedPalette); apart from it so the pages carry
 * these colours without the palette's schema.
 */
export const DEFAULT_PALETTE = {
  general: { backgroundColor: '#f4f5f7', surfaceColor: '#ffffff', primaryColor: '#1d4ed8', errorColor: '#b42318', successColor: '#067647', fontFamily: '' },
  buttons: { primaryBackgroundColor: '#1d4ed8', primaryTextColor: '#ffffff', secondaryBackgroundColor: '#ffffff', secondaryTextColor: '#1d4ed8' },
  text: { primaryColor: '#1b1b1f', secondaryColor: '#4a4d55', linkColor: '#1d4ed8' },
  inputs: { backgroundColor: '#ffffff', textColor: '#1b1b1f', placeholderColor: '#5f636b', borderColor: '#8a8f98', focusColor: '#1d4ed8' },
  countrySelection: { backgroundColor: '#ffffff', textColor: '#1b1b1f', selectedBackgroundColor: '#1d4ed8', selectedTextColor: '#ffffff' },
  documentSelection: { backgroundColor: '#ffffff', textColor: '#1b1b1f', selectedBackgroundColor: '#1d4ed8', selectedTextColor: '#ffffff' },
  documentCapture: { backgroundColor: '#111111', textColor: '#ffffff', frameColor: '#ffffff' },
  faceCapture: { backgroundColor: '#111111', textColor: '#ffffff', ovalColor: '#ffffff' },
  header: { backgroundColor: '#ffffff', textColor: '#1b1b1f' },
  stepper: { backgroundColor: '#ffffff', textColor: '#1b1b1f', activeColor: '#1d4ed8', completedColor: '#067647' },
  progressBar: { trackColor: '#c9ccd3', fillColor: '#1d4ed8' },
} as const;
