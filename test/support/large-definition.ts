/** A definition of the family's size, for the size test and the bench. */
type Json = Record<string, unknown>;

export const FORM = {
  title: { values: { en: 'Document' } },
  version: 1,
  components: [{ type: 'textfield', id: 'docType', label: { values: { en: 'Document type' } } }],
};

/**
 * A generated definition of the family's size: user and service steps in a line, each followed
 * by gateways on variables and flags (some chained, so they fuse), timers on the user steps,
 * error routes, retake loops back to the previous user step.
 */
export function largeDefinition(tasks: number, gateways: number): Json {
  const activities: Record<string, Json> = {};
  const gws: Record<string, Json> = {};
  const perTask = Math.ceil(gateways / tasks);
  let made = 0;
  for (let i = 0; i < tasks; i++) {
    const user = i % 2 === 0;
    const id = `Activity_${i}`;
    const after = i + 1 < tasks ? `Activity_${i + 1}` : 'End_ok';
    let next = after;
    const chain: string[] = [];
    for (let g = 0; g < perTask && made < gateways; g++, made++) chain.push(`Gateway_${i}_${g}`);
    chain.forEach((gid, g) => {
      const onward = g + 1 < chain.length ? chain[g + 1]! : after;
      gws[gid] = {
        branches: [
          { id: `Flow_${gid}_a`, when: `\${execution.hasVariable("flag${i}") ? flag${i} : false}`, next: user ? id : 'End_fail' },
          { id: `Flow_${gid}_b`, when: `\${_documentType != null ? _documentType == "PASSPORT" : false}`, next: onward },
        ],
        default: onward,
      };
    });
    if (chain.length > 0) next = chain[0]!;
    activities[id] = user
      ? {
          type: 'DATA_FORM',
          inputs: { Form: FORM, 'Form data Key': `form${i}` },
          next,
          timer: { duration: 'PT30M', next: 'End_fail' },
        }
      : { type: 'ADD_USER', inputs: { 'External ID': '${externalId}', 'Store Name': 'customers', 'User Key': `user${i}` }, next, errorEvents: { 'ExtId Not Unique': 'End_fail' } };
  }
  return { name: 'large', version: 1, startActivityId: 'Activity_0', activities, gateways: gws, ends: { End_ok: {}, End_fail: { error: 'failed' } } };
}

