import NavigatedViewer from 'bpmn-js/lib/NavigatedViewer';
import { h } from '../dom.js';

/**
 * A definition's BPMN drawn with bpmn-js's NavigatedViewer (the viewer the family's designer is
 * built on): drag to move, wheel or pinch to zoom. The drawing is a named group (the viewer
 * makes it focusable, so it cannot be an image); the definition's facts say what it holds in words.
 */
export async function drawDiagram(xml: string, label: string): Promise<HTMLElement> {
  const container = h('div', { class: 'diagram', role: 'group', 'aria-label': label });
  // The viewer measures its container: it must be in the document before the import.
  const holder = h('figure', { class: 'diagram-figure' }, container, h('figcaption', {}, 'Drag to move, use the wheel or pinch to zoom.'));
  document.getElementById('diagram-slot')?.replaceChildren(holder);
  const viewer = new NavigatedViewer({ container });
  await viewer.importXML(xml);
  (viewer.get('canvas') as { zoom: (to: string) => void }).zoom('fit-viewport');
  return holder;
}
