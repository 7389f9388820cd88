/** `console`: log lines handed to the host, non-strings as JSON, cut to the run's log budget. */
import type { HostFunctions } from './contract.js';
import { install, stringify } from './intrinsics.js';

function describe(value: unknown): string {
  switch (typeof value) {
    case 'string': return value;
    case 'undefined': return 'undefined';
    case 'function': return '[Function ' + (value.name || 'anonymous') + ']';
    case 'bigint': return String(value) + 'n';
    case 'symbol': case 'number': case 'boolean': return String(value);
  }
  if (value === null) return 'null';
  try {
    if (value instanceof Error) return String(value.name) + ': ' + String(value.message) + (value.stack ? '\n' + String(value.stack).replace(/\n$/, '') : '');
    const json: string | undefined = stringify(value);
    return json === undefined ? String(value) : json;
  } catch (e) {
    try { return String(value); } catch (e2) { return '[object]'; }
  }
}

export function installConsole(hostLog: HostFunctions['log'], logCap: number): void {
  // A line is cut here to the whole log budget (in UTF-16 units, at most as many bytes), so a
  // huge line is never copied out whole; the host cuts it to the bytes left.
  function logger(level: Parameters<HostFunctions['log']>[0]) {
    return function (...args: unknown[]): void {
      let out = '';
      for (let i = 0; i < args.length && out.length <= logCap; i++) out += (i ? ' ' : '') + describe(args[i]);
      hostLog(level, out.length > logCap ? out.slice(0, logCap) : out, out.length > logCap);
    };
  }
  install('console', {
    log: logger('info'), info: logger('info'), warn: logger('warn'), error: logger('error'),
    debug: logger('debug'), trace: logger('debug'),
  });
}
