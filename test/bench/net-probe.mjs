// Preload for the "no network at import" check: `node --import <this file> ...`.
//
// Replaces every way a Node process opens a connection or resolves a name with a stub that
// records the call and then fails it, so the process never talks to anything. At exit, writes
// one line `BENCH_NET <json>` to stderr with the count and the calls seen.
import dgram from 'node:dgram';
import dns from 'node:dns';
import { writeSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import tls from 'node:tls';

const calls = [];

function record(kind, target) {
  const stack = (new Error().stack ?? '')
    .split('\n')
    .slice(3)
    .map((l) => l.trim())
    .filter((l) => !l.includes('net-probe.mjs'))
    .slice(0, 4);
  calls.push({ kind, target: String(target ?? ''), stack });
}

function describe(args) {
  const [a, b] = args;
  if (a && typeof a === 'object') {
    const o = Array.isArray(a) ? a[0] ?? {} : a;
    return o.path ?? `${o.host ?? o.hostname ?? 'localhost'}:${o.port ?? ''}`;
  }
  if (typeof a === 'number' || (typeof a === 'string' && /^\d+$/.test(a))) return `${typeof b === 'string' ? b : 'localhost'}:${a}`;
  return a;
}

function refused(target) {
  const err = new Error(`network disabled by the bench probe (${target})`);
  err.code = 'ECONNREFUSED';
  return err;
}

/** A socket that never connected: it fails on the next tick, as a refused connection would. */
function deadSocket(socket, target) {
  process.nextTick(() => socket.destroy(refused(target)));
  return socket;
}

net.Socket.prototype.connect = function connect(...args) {
  const target = describe(args);
  record('net.Socket#connect', target);
  return deadSocket(this, target);
};

const netConnect = function connect(...args) {
  const target = describe(args);
  record('net.connect', target);
  return deadSocket(new net.Socket(), target);
};
net.connect = netConnect;
net.createConnection = netConnect;

tls.connect = function connect(...args) {
  const target = describe(args);
  record('tls.connect', target);
  return deadSocket(new net.Socket(), target);
};

dgram.Socket.prototype.send = function send(...args) {
  record('dgram.Socket#send', args.find((a, i) => i > 0 && typeof a === 'string') ?? '');
  const cb = args.findLast((a) => typeof a === 'function');
  if (cb) process.nextTick(cb, refused('udp'));
};

dns.lookup = function lookup(hostname, options, callback) {
  record('dns.lookup', hostname);
  const cb = typeof options === 'function' ? options : callback;
  const err = new Error(`getaddrinfo ENOTFOUND ${hostname} (network disabled by the bench probe)`);
  err.code = 'ENOTFOUND';
  if (typeof cb === 'function') process.nextTick(cb, err);
  return {};
};

dns.promises.lookup = async function lookup(hostname) {
  record('dns.promises.lookup', hostname);
  const err = new Error(`getaddrinfo ENOTFOUND ${hostname} (network disabled by the bench probe)`);
  err.code = 'ENOTFOUND';
  throw err;
};

// `import { lookup } from 'node:dns'` and friends must see the stubs too.
syncBuiltinESMExports();

process.on('exit', () => {
  writeSync(2, `\nBENCH_NET ${JSON.stringify({ count: calls.length, calls })}\n`);
});
