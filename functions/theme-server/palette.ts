import * as z from '../shared/zod.js';
import { contrastRatio, parseColor } from './contrast.js';
import { DEFAULT_PALETTE as DEFAULTS } from './default-palette.js';

/**
 * A theme's palette: colours by the areas the family's theme editor names (general, buttons,
 * text, inputs, country selection, document selection, document capture, face capture, header,
 * stepper, progress bar). The family's own member names inside an area are not public, so these
 * are this service's (docs/themes.md); every member is optional (what is left out keeps the
 * hosted pages' own colour, DEFAULT_PALETTE) and members and areas this service does not know
 * are kept as sent, so a palette exported from the family comes back as it went in.
 */

/** A CSS colour as contrast.ts reads it. */
export const ColorSchema = z.string().check(
  z.maxLength(64),
  z.refine((s) => parseColor(s) !== undefined, { message: 'must be a CSS colour: #rgb, #rrggbb, #rrggbbaa, rgb(), rgba(), hsl() or hsla()' }),
);

const colour = (description: string) => z.withMeta(z.optional(ColorSchema), { description });

/** Each area with the colours this service paints; unknown members kept. */
export const PALETTE_AREAS = {
  general: {
    backgroundColor: 'The page behind everything.',
    surfaceColor: 'Cards and forms on the page.',
    primaryColor: 'Accents: focus rings, selected items.',
    errorColor: 'Error messages and invalid fields.',
    successColor: 'Confirmations.',
    fontFamily: null,
  },
  buttons: {
    primaryBackgroundColor: 'The main action.',
    primaryTextColor: 'Its label.',
    secondaryBackgroundColor: 'Other actions (retake, back).',
    secondaryTextColor: 'Their labels (and border).',
  },
  text: {
    primaryColor: 'Headings and body text.',
    secondaryColor: 'Hints and subtitles.',
    linkColor: 'Links.',
  },
  inputs: {
    backgroundColor: 'Fields.',
    textColor: 'What is typed.',
    placeholderColor: 'Placeholders.',
    borderColor: "The field's border.",
    focusColor: 'The focused field.',
  },
  countrySelection: { backgroundColor: 'The list.', textColor: 'Its entries.', selectedBackgroundColor: 'The chosen entry.', selectedTextColor: 'Its label.' },
  documentSelection: { backgroundColor: 'The list.', textColor: 'Its entries.', selectedBackgroundColor: 'The chosen entry.', selectedTextColor: 'Its label.' },
  documentCapture: { backgroundColor: 'Around the camera.', textColor: 'Instructions over it.', frameColor: 'The document frame.' },
  faceCapture: { backgroundColor: 'Around the camera.', textColor: 'Instructions over it.', ovalColor: 'The face oval.' },
  header: { backgroundColor: 'The header bar (logo, title).', textColor: 'Its text.' },
  stepper: { backgroundColor: 'The list of steps (desktop).', textColor: 'Its steps.', activeColor: 'The current step.', completedColor: 'Done steps.' },
  progressBar: { trackColor: 'The bar.', fillColor: 'The part done.' },
} as const;

export type PaletteArea = keyof typeof PALETTE_AREAS;
type AreaOf<A extends PaletteArea> = { [K in keyof (typeof PALETTE_AREAS)[A]]?: string };
export type Palette = { [A in PaletteArea]?: AreaOf<A> & Record<string, unknown> } & Record<string, unknown>;
/** Every colour of every area, as the hosted pages paint them. */
export type ResolvedPalette = { [A in PaletteArea]: Required<AreaOf<A>> };

const areaSchemas = Object.fromEntries(
  Object.entries(PALETTE_AREAS).map(([area, members]) => [
    area,
    z.optional(
      z.looseObject(
        Object.fromEntries(
          Object.entries(members).map(([member, description]) => [
            member,
            description === null
              ? z.withMeta(z.optional(z.string().check(z.maxLength(100))), { description: 'The font: the name of one of the theme\'s font assets (default: its first).' })
              : colour(description),
          ]),
        ),
      ),
    ),
  ]),
);

export const PaletteSchema = z.withMeta(z.looseObject(areaSchemas), {
  id: 'ThemePalette',
  description:
    'Colours by area, each a CSS colour (#rgb, #rrggbb, #rrggbbaa, rgb(), rgba(), hsl(), hsla()). Every member is optional; ' +
    'areas and members not listed are kept as sent and not used. The pairs a person reads are checked for WCAG AA contrast (docs/themes.md).',
}) as unknown as z.ZodMiniType<Palette>;

/** The hosted pages' own look: what a palette leaves out (default-palette.ts, which the pages import without this schema). */
export const DEFAULT_PALETTE: ResolvedPalette = DEFAULTS;

/** The palette as the pages paint it: each member given, else the default. */
export function resolvePalette(palette: Palette): ResolvedPalette {
  const out = {} as Record<string, Record<string, string>>;
  for (const [area, defaults] of Object.entries(DEFAULT_PALETTE)) {
    const given = (palette[area] ?? {}) as Record<string, unknown>;
    out[area] = Object.fromEntries(Object.keys(defaults).map((m) => [m, typeof given[m] === 'string' ? (given[m] as string) : (defaults as Record<string, string>)[m]!]));
  }
  return out as unknown as ResolvedPalette;
}

/** WCAG 2.x level AA: 4.5:1 for text (1.4.3), 3:1 for user interface components and graphics (1.4.11). */
export const AA_TEXT = 4.5;
export const AA_NON_TEXT = 3;

type Ref = `${PaletteArea}.${string}`;
/** The pairs a person must tell apart: text on what it is written on, components on what they sit on. */
export const CONTRAST_PAIRS: readonly { foreground: Ref; background: Ref; minimum: number }[] = [
  { foreground: 'text.primaryColor', background: 'general.backgroundColor', minimum: AA_TEXT },
  { foreground: 'text.primaryColor', background: 'general.surfaceColor', minimum: AA_TEXT },
  { foreground: 'text.secondaryColor', background: 'general.backgroundColor', minimum: AA_TEXT },
  { foreground: 'text.secondaryColor', background: 'general.surfaceColor', minimum: AA_TEXT },
  { foreground: 'text.linkColor', background: 'general.backgroundColor', minimum: AA_TEXT },
  { foreground: 'text.linkColor', background: 'general.surfaceColor', minimum: AA_TEXT },
  { foreground: 'general.errorColor', background: 'general.surfaceColor', minimum: AA_TEXT },
  { foreground: 'buttons.primaryTextColor', background: 'buttons.primaryBackgroundColor', minimum: AA_TEXT },
  { foreground: 'buttons.secondaryTextColor', background: 'buttons.secondaryBackgroundColor', minimum: AA_TEXT },
  { foreground: 'inputs.textColor', background: 'inputs.backgroundColor', minimum: AA_TEXT },
  { foreground: 'inputs.placeholderColor', background: 'inputs.backgroundColor', minimum: AA_TEXT },
  { foreground: 'inputs.borderColor', background: 'general.surfaceColor', minimum: AA_NON_TEXT },
  { foreground: 'inputs.focusColor', background: 'general.surfaceColor', minimum: AA_NON_TEXT },
  { foreground: 'countrySelection.textColor', background: 'countrySelection.backgroundColor', minimum: AA_TEXT },
  { foreground: 'countrySelection.selectedTextColor', background: 'countrySelection.selectedBackgroundColor', minimum: AA_TEXT },
  { foreground: 'documentSelection.textColor', background: 'documentSelection.backgroundColor', minimum: AA_TEXT },
  { foreground: 'documentSelection.selectedTextColor', background: 'documentSelection.selectedBackgroundColor', minimum: AA_TEXT },
  { foreground: 'documentCapture.textColor', background: 'documentCapture.backgroundColor', minimum: AA_TEXT },
  { foreground: 'documentCapture.frameColor', background: 'documentCapture.backgroundColor', minimum: AA_NON_TEXT },
  { foreground: 'faceCapture.textColor', background: 'faceCapture.backgroundColor', minimum: AA_TEXT },
  { foreground: 'faceCapture.ovalColor', background: 'faceCapture.backgroundColor', minimum: AA_NON_TEXT },
  { foreground: 'header.textColor', background: 'header.backgroundColor', minimum: AA_TEXT },
  { foreground: 'stepper.textColor', background: 'stepper.backgroundColor', minimum: AA_TEXT },
  { foreground: 'stepper.activeColor', background: 'stepper.backgroundColor', minimum: AA_NON_TEXT },
  { foreground: 'progressBar.fillColor', background: 'progressBar.trackColor', minimum: AA_NON_TEXT },
];

/** A pair under its minimum. `ratio` is cut (not rounded) to two decimals, so a failing pair never reads as passing. */
export interface ContrastFailure {
  foreground: string;
  background: string;
  foregroundColor: string;
  backgroundColor: string;
  ratio: number;
  minimum: number;
}

function at(palette: ResolvedPalette, ref: Ref): string {
  const [area, member] = ref.split('.') as [PaletteArea, string];
  return (palette[area] as Record<string, string>)[member]!;
}

/** Every pair of CONTRAST_PAIRS the palette (with the defaults for what it leaves out) fails. */
export function contrastFailures(palette: Palette): ContrastFailure[] {
  const resolved = resolvePalette(palette);
  const failures: ContrastFailure[] = [];
  for (const pair of CONTRAST_PAIRS) {
    const fg = at(resolved, pair.foreground);
    const bg = at(resolved, pair.background);
    const ratio = contrastRatio(parseColor(fg)!, parseColor(bg)!);
    if (ratio < pair.minimum) {
      failures.push({ foreground: pair.foreground, background: pair.background, foregroundColor: fg, backgroundColor: bg, ratio: Math.floor(ratio * 100) / 100, minimum: pair.minimum });
    }
  }
  return failures;
}
