import { ApiError, api, explain } from '../api.js';
import { badge, facts, h, notice, replace, time } from '../dom.js';
import type { Screen, ScreenContext } from '../screens.js';
import type { Definition, Page } from '../types.js';
import { drawDiagram } from './diagram.js';

const DEFINITIONS = '/api/process-manager/processDefinitions';

/**
 * Definitions: every published version by name with its status; `#/definitions/{id}` is one
 * version, its other versions and its BPMN diagram (`.../bpmnFile`).
 */
export const definitionsScreen: Screen = {
  route: 'definitions',
  label: 'Definitions',
  needs: ['ProcessManager:getProcessDefinitions'],
  async render(ctx) {
    if (ctx.params[0]) return definition(ctx, ctx.params[0]);
    document.title = 'Definitions – Console';
    const list = h('div', {});
    const more = h('div', { class: 'more' });
    replace(ctx.main, h('h1', {}, 'Definitions'), h('p', { class: 'hint' }, 'Each journey by name, with its versions and their status. Open a version to see its diagram.'), list, more);
    const byName = new Map<string, HTMLElement>();
    const load = async (cursor?: string) => {
      try {
        const page = await api<Page<Definition>>('GET', DEFINITIONS, { query: { size: 100, cursor } });
        if (!cursor && !page.content.length) list.append(h('p', {}, 'No definitions yet.'));
        for (const d of page.content) {
          let versions = byName.get(d.name);
          if (!versions) {
            versions = h('ul', { class: 'versions' });
            byName.set(d.name, versions);
            const headingId = `defn-${byName.size}`;
            list.append(h('section', { class: 'card', 'aria-labelledby': headingId }, h('h2', { id: headingId }, d.name), d.description ? h('p', { class: 'hint' }, d.description) : null, versions));
          }
          versions.append(h('li', {}, h('a', { href: `#/definitions/${encodeURIComponent(d.id)}` }, `Version ${d.version}`), ' ', badge(d.status), ' · published ', time(d.createdDtm)));
        }
        replace(more, page.nextCursor ? h('button', { type: 'button', class: 'secondary', onclick: () => void load(page.nextCursor!) }, 'Show more') : null);
      } catch (err) {
        replace(more, notice(`The definitions could not be read: ${explain(err)}`, 'error'));
      }
    };
    await load();
  },
};

async function definition(ctx: ScreenContext, id: string): Promise<void> {
  let d: Definition;
  try {
    d = await api<Definition>('GET', `${DEFINITIONS}/${encodeURIComponent(id)}`);
  } catch (err) {
    document.title = 'Definition – Console';
    replace(ctx.main, h('h1', {}, 'Definition'), notice(err instanceof ApiError && err.status === 404 ? 'No such definition in this tenant.' : `The definition could not be read: ${explain(err)}`, 'error'));
    return;
  }
  const title = `${d.name} v${d.version}`;
  document.title = `${title} – Console`;
  const versions = h('div', {});
  replace(
    ctx.main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/definitions' }, 'Definitions')),
    h('h1', {}, title),
    facts([
      ['Status', badge(d.status)],
      ['Description', d.description || '–'],
      ['Id', h('code', {}, d.id)],
      ['Retention', `${d.retentionDays} days`],
      ['Published', [time(d.createdDtm), ` by ${d.createdBy}`]],
    ]),
    h('section', { 'aria-labelledby': 'diagram-h' }, h('h2', { id: 'diagram-h' }, 'Diagram'), h('div', { id: 'diagram-slot' }, h('p', { role: 'status', class: 'loading' }, 'Drawing the diagram…'))),
    versions,
  );
  try {
    const xml = await api<string>('GET', `${DEFINITIONS}/${encodeURIComponent(id)}/bpmnFile`, { as: 'text' });
    await drawDiagram(xml, `BPMN diagram of ${title}`);
  } catch (err) {
    document.getElementById('diagram-slot')?.replaceChildren(notice(`The diagram could not be drawn: ${explain(err)}`, 'error'));
  }
  try {
    const page = await api<Page<Definition>>('GET', `${DEFINITIONS}/${encodeURIComponent(d.name)}/versions`, { query: { size: 100, sort: 'version,desc' } });
    replace(
      versions,
      h(
        'section',
        { 'aria-labelledby': 'versions-h' },
        h('h2', { id: 'versions-h' }, 'Versions'),
        h(
          'ul',
          { class: 'versions' },
          page.content.map((v) =>
            h('li', {}, v.id === d.id ? h('strong', { 'aria-current': 'page' }, `Version ${v.version}`) : h('a', { href: `#/definitions/${encodeURIComponent(v.id)}` }, `Version ${v.version}`), ' ', badge(v.status), ' · ', time(v.createdDtm)),
          ),
        ),
      ),
    );
  } catch (err) {
    replace(versions, notice(`The versions could not be read: ${explain(err)}`, 'error'));
  }
}
