// Reads the node's cfg.yaml (YAML 1.2, so JSON is accepted too). Only the
// keys the stand-in uses are interpreted: port, tcpport, bootstrap.static,
// public-addr, reachability (public, private, auto) and role.
// As in the real node (viper with the OF prefix), an OF_<KEY> variable
// overrides a top-level key (OF_PORT, OF_TCPPORT), and a document that
// does not parse is not read at all: the real node then runs on its
// defaults (port 8092, tcpport 43905, the public bootstrap list; here no
// bootstrap peer, so nothing leaves the machine).
import fs from 'node:fs'
import YAML from 'yaml'
import { UserError } from './errors.js'

export class ConfigError extends UserError {}

function parsePort (value, key, file) {
	const text = String(value ?? '').trim()
	if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 65535) {
		throw new ConfigError(`${file}: "${key}" must be a port number 1-65535, got ${JSON.stringify(value)}`)
	}
	return Number(text)
}

export function readConfig (file) {
	let text
	try {
		text = fs.readFileSync(file, 'utf8')
	} catch (err) {
		throw new ConfigError(`cannot read config ${file}: ${err.message}`)
	}
	let doc
	try {
		doc = YAML.parse(text)
	} catch (err) {
		process.stderr.write(`config file ${file} not used (${err.message}): running on the defaults\n`)
		doc = { port: '8092', tcpport: '43905', bootstrap: { static: [] } }
	}
	for (const [k, v] of Object.entries(process.env)) {
		const m = /^OF_([A-Z0-9]+)$/.exec(k)
		if (m && doc && typeof doc === 'object') doc[m[1].toLowerCase()] = v
	}
	if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) {
		throw new ConfigError(`${file}: expected a mapping at the top level`)
	}
	const cfg = { file, port: parsePort(doc.port, 'port', file) }
	cfg.tcpport = doc.tcpport === undefined ? null : parsePort(doc.tcpport, 'tcpport', file)
	const bootstrap = doc.bootstrap?.static ?? []
	if (!Array.isArray(bootstrap) || bootstrap.some(a => typeof a !== 'string')) {
		throw new ConfigError(`${file}: "bootstrap.static" must be a list of multiaddr strings`)
	}
	cfg.bootstrap = bootstrap
	cfg.publicAddr = String(doc['public-addr'] ?? '').trim()
	cfg.reachability = String(doc.reachability ?? '').trim().toLowerCase()
	cfg.role = String(doc.role ?? '').trim() || 'worker'
	return cfg
}
