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
// Pure-Python cryptography beside hashlib/hmac/secrets (pylibs.zip, from Debian 12's packages:
// python3-jwt 2.6.0-1+deb12u1, python3-rsa 4.8-1, python3-ecdsa 0.18.0-3, python3-pyaes 1.6.1-4,
// python3-pyasn1 0.4.8-3+deb12u3, python3-six 1.16.0-4; their licences in LICENSES/). The
// `cryptography` package itself needs its pyodide wheel, which the npm package does not ship.
py.unpackArchive(new Uint8Array(fs.readFileSync(path.join(assetsDir, 'pylibs.zip'))), 'zip', { extractDir: site });
// What functions import, loaded once here rather than compiled in every run (the standard
// library ships as .py source: email.mime alone took ~500 ms to import in a run, xml.etree ~260).
py.runPython(`
import base64, binascii, calendar, collections, copy, csv, dataclasses, datetime, decimal, enum, functools
import hashlib, hmac, html, io, itertools, json, math, operator, random, re, secrets, statistics, string
import struct, textwrap, time, traceback, typing, unicodedata, uuid, zlib, zoneinfo
import urllib.parse, urllib.request, urllib.error, http.client, email.utils, email.message, logging
import email.mime.text, email.mime.multipart, email.mime.base, xml.etree.ElementTree, xml.dom.minidom
import html.parser, difflib, pprint, pickle, gzip, shlex, queue, mimetypes, platform, getpass
import jwt, rsa, ecdsa, pyaes, pyasn1
import cfresults, requests, _cfhost
`);
// Files written to pyodide's file system are not part of a memory snapshot (they live outside the
// WebAssembly memory), and writing them again in every run child cost ~100-250 ms. So what must
// outlive the snapshot is held in Python's memory instead:
// - every module of the pure-Python libraries is imported now (none is imported late from a file);
// - the time zone database (pyodide ships none; tzdata.zip is Debian 12's /usr/share/zoneinfo,
//   tzdata 2025b-0+deb12u2, public domain, without its right/ and posix/ copies) is kept as bytes,
//   and zoneinfo reads it from there, as it would from the tzdata package.
py.FS.writeFile('/tmp/tzdata.zip', fs.readFileSync(path.join(assetsDir, 'tzdata.zip')));
py.runPython(`
import importlib, io, os, pkgutil, zipfile, zoneinfo, zoneinfo._common
for package in (jwt, rsa, ecdsa, pyaes, pyasn1):
    for module in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        importlib.import_module(module.name)

def _zone_loader():
    # Closures, not globals: the run child clears the globals this code runs in.
    from io import BytesIO
    from zoneinfo import ZoneInfoNotFoundError
    with zipfile.ZipFile("/tmp/tzdata.zip") as archive:
        zones = {name: archive.read(name) for name in archive.namelist() if not name.endswith("/")}

    def load_tzdata(key):
        data = zones.get(key)
        if data is None:
            raise ZoneInfoNotFoundError(f"No time zone found with key {key}")
        return BytesIO(data)

    def available_timezones():
        return {key for key, data in zones.items() if data[:4] == b"TZif"}

    return load_tzdata, available_timezones

load_tzdata, available_timezones = _zone_loader()
os.remove("/tmp/tzdata.zip")
zoneinfo._common.load_tzdata = load_tzdata
zoneinfo.reset_tzpath([])
zoneinfo.available_timezones = available_timezones
`);
const snapshot = py.makeMemorySnapshot();
const temporary = `${target}.${process.pid}.tmp`;
fs.writeFileSync(temporary, snapshot, { mode: 0o600 });
fs.renameSync(temporary, target);
process.stdout.write(JSON.stringify({ version: py.version, python: py.runPython('import sys; sys.version.split()[0]'), bytes: snapshot.length }));
