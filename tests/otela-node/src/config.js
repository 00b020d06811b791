// Reads the node's cfg.yaml (YAML 1.2, so JSON is accepted too). Only the
// keys the stand-in uses are interpreted: port, tcpport, bootstrap.static.
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
		throw new ConfigError(`${file} is not valid YAML: ${err.message}`)
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
	return cfg
}
