/**
 * Makes the memory snapshot every run child starts from: pyodide loaded, the standard library a
 * function needs and this folder's Python modules imported. Run once per engine version by the
 * engine, as a trusted child (no permission flags, an empty environment, no tenant code), which
 * writes the snapshot atomically (a temporary file renamed into place).
 *
 * argv: <pyodide dir> <assets dir> <snapshot path>
 */
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const [pyodideDir, assetsDir, target] = process.argv.slice(2);
const { loadPyodide } = await import(pathToFileURL(path.join(pyodideDir, 'pyodide.mjs')).href);
const py = await loadPyodide({
  indexURL: `${pyodideDir}/`,
  jsglobals: Object.create(null),
  env: {},
  _makeSnapshot: true,
  stdout: () => {},
  stderr: (line) => process.stderr.write(`${line}\n`),
});
const site = py.runPython('import site; site.getsitepackages()[0]');
for (const [file, module] of [['cfresults.py', 'cfresults'], ['requests.py', 'requests'], ['cfhost.py', '_cfhost']]) {
  py.FS.writeFile(`${site}/${module}.py`, fs.readFileSync(path.join(assetsDir, file)));
}
// What functions import, loaded once here rather than compiled in every run (the standard
// library ships as .py source: email.mime alone took ~500 ms to import in a run, xml.etree ~260).
py.runPython(`
import base64, binascii, calendar, collections, copy, csv, dataclasses, datetime, decimal, enum, functools
import hashlib, hmac, html, io, itertools, json, math, operator, random, re, secrets, statistics, string
import struct, textwrap, time, traceback, typing, unicodedata, uuid, zlib, zoneinfo
import urllib.parse, urllib.request, urllib.error, http.client, email.utils, email.message, logging
import email.mime.text, email.mime.multipart, email.mime.base, xml.etree.ElementTree, xml.dom.minidom
import html.parser, difflib, pprint, pickle, gzip, shlex, queue, mimetypes, platform, getpass
import cfresults, requests, _cfhost
`);
const snapshot = py.makeMemorySnapshot();
const temporary = `${target}.${process.pid}.tmp`;
fs.writeFileSync(temporary, snapshot, { mode: 0o600 });
fs.renameSync(temporary, target);
process.stdout.write(JSON.stringify({ version: py.version, python: py.runPython('import sys; sys.version.split()[0]'), bytes: snapshot.length }));
