import { describe, expect, it } from 'vitest';
import { resolveTheme } from '../../../functions/theme-server/resolved-theme.js';
import { PALETTE_AREAS } from '../../../functions/theme-server/palette.js';
import { parseColor } from '../../../functions/theme-server/contrast.js';
import { newInstance } from '../../../functions/process-manager/instances/instances.js';
import type { ThemeAsset, ThemeRecord } from '../../../functions/theme-server/model.js';
import type { ProcessDefinitionRecord, ProcessTokenRecord } from '../../../functions/process-manager/model.js';

const ID = '3b241101-e2bb-4255-8caf-4136c566a962';

function record(palette: Record<string, unknown>, assets: ThemeAsset[]): ThemeRecord {
  const at = '2026-11-28T00:00:00Z';
  return { tenantId: 'demo', id: ID, name: 'n'.repeat(100), version: 1, description: '', status: 'DEPLOYED_ACTIVE', createdDtm: at, createdBy: 'a', lastUpdatedDtm: at, lastUpdatedBy: 'a', palette, assets, revision: 0 } as ThemeRecord;
}

function asset(name: string, fileExtension: string, kind: 'font' | 'image'): ThemeAsset {
  return { name, fileExtension, kind, contentType: kind === 'font' ? 'font/woff2' : 'image/png', secret: 'A'.repeat(22), size: 1, sha256: '0'.repeat(64), createdDtm: '2026-11-28T00:00:00Z' };
}

describe('the theme an instance keeps (pages.theme)', () => {
  it('is bounded whatever the palette holds: only the known members, each at most 64 characters, and at most 20 assets', () => {
    // The longest colour the palette takes (64 characters), for every known member.
    const longest = `rgba(${'1'.repeat(15)}, ${'2'.repeat(15)}, ${'3'.repeat(15)}, 0.5)`.slice(0, 64).replace(/,[^,]*$/, ', 1)');
    expect(parseColor(longest)).toBeDefined();
    const palette = Object.fromEntries(
      Object.entries(PALETTE_AREAS).map(([area, members]) => [area, Object.fromEntries(Object.keys(members).map((m) => [m, m === 'fontFamily' ? 'f'.repeat(100) : longest]))]),
    );
    // What the pages do not paint is not kept: a palette near its 32 KiB of unknown members adds nothing.
    palette.unknownArea = { spinner: 'x'.repeat(30_000) };
    // 20 assets whose names are the longest and percent-encode the most (a space is `%20`).
    const assets = Array.from({ length: 20 }, (_, i) => asset(`${String(i).padStart(2, '0')}${' '.repeat(98)}`, i % 2 ? 'woff2' : 'png', i % 2 ? 'font' : 'image'));
    const resolved = resolveTheme(record(palette, assets));
    expect(JSON.stringify(resolved)).not.toContain('spinner');
    expect(resolved.fonts).toHaveLength(10);
    // Well within a DynamoDB item (400 KB) beside the instance's other members.
    expect(Buffer.byteLength(JSON.stringify(resolved))).toBeLessThan(12 * 1024);
  });

  it('is snapshotted with the definition version\'s pages when the instance is created, and absent without a theme', () => {
    const definition = { id: 'd1', name: 'x', version: 1, retentionDays: 90, stateMachineArn: 'arn:sm', pages: { presentation: { name: 'Nordbank' } } } as unknown as ProcessDefinitionRecord;
    const token = { id: 't1', parameters: {} } as unknown as ProcessTokenRecord;
    const ctx = { tenantId: 'demo', actor: 'apikey:1', now: new Date('2026-11-28T00:00:00Z') };
    const theme = resolveTheme(record({ header: { backgroundColor: '#0b1f4d', textColor: '#ffffff' } }, [asset('logo', 'png', 'image')]));
    const themed = newInstance(token, definition, { ...ctx, theme }).record;
    expect(themed.pages).toEqual({ presentation: { name: 'Nordbank' }, theme });
    // The definition's own pages are not changed by it.
    expect(definition.pages).toEqual({ presentation: { name: 'Nordbank' } });
    expect(newInstance(token, definition, ctx).record.pages).toEqual({ presentation: { name: 'Nordbank' } });
    const bare = { ...definition, pages: undefined } as unknown as ProcessDefinitionRecord;
    expect(newInstance(token, bare, { ...ctx, theme }).record.pages).toEqual({ theme });
    expect('pages' in newInstance(token, bare, ctx).record).toBe(false);
  });
});
