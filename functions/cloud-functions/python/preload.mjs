/**
 * Loaded with --import before the run child (child.mjs). Node 20's permission model covers files,
 * child processes and workers but not the network, so the network is shut here, in the child's own
 * realm, before any other code runs: every way Node opens a socket or resolves a name throws.
 * Emscripten reaches sockets through SOCKFS (the `ws` package, over net/tls): a Python `socket`
 * then fails with "Host is unreachable".
 */
import dgram from 'node:dgram';
import dns from 'node:dns';
import fs from 'node:fs';
import http from 'node:http';
import http2 from 'node:http2';
import https from 'node:https';
import inspector from 'node:inspector';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';
import os from 'node:os';
import tls from 'node:tls';

const denied = (what) =>
  function denied() {
    throw new Error(`${what} is not available to cloud functions`);
  };

for (const name of ['connect', 'createConnection', 'createServer']) net[name] = denied(`net.${name}`);
net.Socket.prototype.connect = denied('net.Socket.connect');
net.Server.prototype.listen = denied('net.Server.listen');
for (const name of ['connect', 'createServer']) tls[name] = denied(`tls.${name}`);
tls.TLSSocket.prototype.connect = denied('tls.TLSSocket.connect');
dgram.createSocket = denied('dgram.createSocket');
dgram.Socket.prototype.bind = denied('dgram.Socket.bind');
dgram.Socket.prototype.send = denied('dgram.Socket.send');
for (const module of [http, https]) {
  for (const name of ['request', 'get', 'createServer']) module[name] = denied(`http.${name}`);
}
http2.connect = denied('http2.connect');
for (const name of Object.keys(dns)) {
  if (typeof dns[name] === 'function' && /^(lookup|resolve|reverse)/.test(name)) dns[name] = denied(`dns.${name}`);
}
for (const name of Object.keys(dns.promises)) {
  if (typeof dns.promises[name] === 'function' && /^(lookup|resolve|reverse)/.test(name)) dns.promises[name] = denied(`dns.${name}`);
}
dns.Resolver = denied('dns.Resolver');
dns.promises.Resolver = denied('dns.Resolver');

// The permission model throws on process.binding; Emscripten's NODEFS asks it for the fs
// constants when it starts, so that one answer is given and nothing else.
const constants = Object.freeze({ fs: fs.constants, os: os.constants });
process.binding = (name) => {
  if (name === 'constants') return constants;
  throw new Error('process.binding is not available to cloud functions');
};
process._linkedBinding = denied('process._linkedBinding');
// Signals reach any process of the same user (the engine's own): a guest that reached this realm
// could otherwise kill the runner.
process.kill = denied('process.kill');
process._kill = denied('process._kill');
if (process.report) process.report.writeReport = denied('process.report.writeReport');
// _debugProcess(pid) opens another process's inspector (the engine's); inspector.open this one's.
process._debugProcess = denied('process._debugProcess');
process._debugEnd = denied('process._debugEnd');
inspector.open = denied('inspector.open');
process.dlopen = denied('process.dlopen');

for (const name of ['fetch', 'WebSocket', 'EventSource', 'XMLHttpRequest']) delete globalThis[name];

// Named ESM imports (`import { connect } from 'node:net'`) see the replacements too.
syncBuiltinESMExports();
