import type { ThemeRecord, ThemeStore, ThemeSummary } from '../theme-server/model.js';
import { itemCodec } from './codec.js';
import { transactWrite } from './client.js';
import { keys } from './keys.js';
import { countRange, readRange, type KeyRange } from './ranges.js';
import { versionedStore } from './versioned.js';

const k = keys.versioned('theme');
const summaries = itemCodec<ThemeSummary>('ThemeVersion');

const summaryOf = ({ tenantId: _tenant, palette: _palette, assets: _assets, revision: _revision, ...summary }: ThemeRecord): ThemeSummary => summary;

/** Themes by name and version (keys.versioned('theme')): what a definition's `themeId` is checked against needs no more. */
export const themeVersions = /* @__PURE__ */ versionedStore<ThemeRecord, ThemeSummary>('theme', { version: 'Theme', nameVersion: 'ThemeVersion' }, summaryOf);

/** The same, with every name's versions and the content updates an EDITABLE version takes (built apart, so a reader bundles neither). */
export const themeStore: ThemeStore = /* @__PURE__ */ withContent(themeVersions);

function withContent(base: typeof themeVersions): ThemeStore {
  return {
    ...base,

    allVersions(tenantId) {
      const range: KeyRange = { pk: k.partition(tenantId), prefix: k.allVersionsPrefix };
      return {
        async read(o) {
          const read = await readRange(range, o);
          const rows = read.items.flatMap((item, i) => {
            const summary = summaries.decode(item);
            return summary ? [{ record: summary, at: read.positions[i]! }] : [];
          });
          return { rows, done: read.done };
        },
        isPosition: (at) => at.startsWith(range.prefix) && /#\d{9}$/.test(at),
        count: (cap) => countRange(range, cap),
      };
    },

    async update(record) {
      // The content and its revision on the version's item; the description and who changed it on
      // its name + version item too (a versions page shows them). Both only if nobody changed the
      // version (content or status) since it was read.
      const common = {
        ConditionExpression: '#status = :status',
        ExpressionAttributeNames: { '#status': 'status', '#description': 'description' },
      };
      const at = { ':now': record.lastUpdatedDtm, ':by': record.lastUpdatedBy, ':description': record.description, ':status': record.status };
      const outcome = await transactWrite({
        record: {
          Update: {
            Key: k.item(record.tenantId, record.id),
            UpdateExpression: 'SET palette = :palette, assets = :assets, revision = :revision, #description = :description, lastUpdatedDtm = :now, lastUpdatedBy = :by',
            ConditionExpression: `${common.ConditionExpression} AND revision = :read`,
            ExpressionAttributeNames: common.ExpressionAttributeNames,
            ExpressionAttributeValues: { ...at, ':palette': record.palette, ':assets': record.assets, ':revision': record.revision, ':read': record.revision - 1 },
          },
        },
        version: {
          Update: {
            Key: k.nameVersion(record.tenantId, record.name, record.version),
            UpdateExpression: 'SET #description = :description, lastUpdatedDtm = :now, lastUpdatedBy = :by',
            ...common,
            ExpressionAttributeValues: at,
          },
        },
      });
      if (outcome.written) return 'updated';
      return (await base.get(record.tenantId, record.id)) ? 'changed' : 'gone';
    },
  };
}
