import { describe, expect, it } from 'vitest';
import * as z from '../../../functions/shared/zod.js';
import { CONTRAST_PAIRS, DEFAULT_PALETTE, PaletteSchema, contrastFailures, resolvePalette } from '../../../functions/theme-server/palette.js';

describe('PaletteSchema', () => {
  it('keeps areas and members it does not know, as sent', () => {
    const sent = { general: { backgroundColor: '#ffffff', familyOnly: { nested: true } }, familyArea: { anything: 1 } };
    expect(z.parse(PaletteSchema, sent)).toEqual(sent);
  });

  it('refuses a known member that is not a colour, naming it', () => {
    const out = z.safeParse(PaletteSchema, { buttons: { primaryBackgroundColor: 'blue' } });
    expect(out.success).toBe(false);
    expect(out.error!.issues[0]!.path).toEqual(['buttons', 'primaryBackgroundColor']);
  });

  it('takes an empty palette (the pages keep their own colours)', () => {
    expect(z.safeParse(PaletteSchema, {}).success).toBe(true);
  });
});

describe('contrastFailures', () => {
  it('passes the default palette', () => {
    expect(contrastFailures({})).toEqual([]);
    expect(contrastFailures(DEFAULT_PALETTE as never)).toEqual([]);
  });

  it('names each failing pair with both colours and its ratio cut to two decimals', () => {
    const failures = contrastFailures({ text: { primaryColor: '#777777' }, buttons: { primaryBackgroundColor: '#ffcc00', primaryTextColor: '#ffffff' } });
    const byPair = Object.fromEntries(failures.map((f) => [`${f.foreground} on ${f.background}`, f]));
    expect(Object.keys(byPair).sort()).toEqual(
      ['buttons.primaryTextColor on buttons.primaryBackgroundColor', 'text.primaryColor on general.backgroundColor', 'text.primaryColor on general.surfaceColor'].sort(),
    );
    // #777 on white: 4.478…, cut to 4.47, never rounded up to a passing 4.5.
    expect(byPair['text.primaryColor on general.surfaceColor']).toMatchObject({ foregroundColor: '#777777', backgroundColor: '#ffffff', ratio: 4.47, minimum: 4.5 });
    expect(byPair['buttons.primaryTextColor on buttons.primaryBackgroundColor']!.ratio).toBeLessThan(2);
  });

  it('passes a palette exactly at the edge and fails it just past', () => {
    const at = { general: { backgroundColor: '#ffffff' }, text: { primaryColor: '#767676' } };
    expect(contrastFailures(at)).toEqual([]);
    expect(contrastFailures({ ...at, text: { primaryColor: '#777777' } }).map((f) => f.foreground)).toEqual(['text.primaryColor', 'text.primaryColor']);
  });

  it('holds components to 3:1, not 4.5:1', () => {
    // #949494 on white is 3.03:1: a border passes, text of that colour would not.
    expect(contrastFailures({ inputs: { borderColor: '#949494' } })).toEqual([]);
    expect(contrastFailures({ inputs: { borderColor: '#959595' } }).map((f) => [f.foreground, f.minimum])).toEqual([['inputs.borderColor', 3]]);
  });

  it('checks the pairs of every area the family names', () => {
    const areas = new Set(CONTRAST_PAIRS.flatMap((p) => [p.foreground, p.background].map((r) => r.split('.')[0])));
    expect([...areas].sort()).toEqual(Object.keys(DEFAULT_PALETTE).sort());
  });
});

describe('resolvePalette', () => {
  it('fills what the palette leaves out with the pages\' own colours and ignores members it does not paint', () => {
    const resolved = resolvePalette({ header: { backgroundColor: '#000000', unknown: '#123' } });
    expect(resolved.header).toEqual({ backgroundColor: '#000000', textColor: DEFAULT_PALETTE.header.textColor });
    expect(resolved.buttons).toEqual(DEFAULT_PALETTE.buttons);
  });
});
