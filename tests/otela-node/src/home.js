// What the real `otela init` and `otela start` keep in $HOME, outside the
// config dir: ~/.config/opentela/cfg.yaml (init), a wallet
// ~/.config/opentela/accounts.json plus accounts/<pub>/keypair.json (init;
// the real one writes accounts.json with a plain os.WriteFile, not
// atomically) and the CRDT database ~/.ocfcore/ocfcore.<peerid>.db
// (start; removed by the SIGTERM cleanup). The stand-in writes the same
// files the same way, so that hosts sharing one $HOME race as with the real
// node: accounts.json is written in two halves OTELA_FAKE_WALLET_WRITE_MS
// apart (default 200), and a reader in between sees half a file.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from './errors.js'

export function homeDir () {
	const home = process.env.HOME
	if (!home) throw new UserError('Failed to determine home directory: $HOME is not defined')
	return home
}

const sleepSync = ms => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)

function writeNonAtomic (file, text) {
	const ms = Number(process.env.OTELA_FAKE_WALLET_WRITE_MS ?? 200)
	const fd = fs.openSync(file, 'w', 0o600)
	try {
		const half = Math.floor(text.length / 2)
		fs.writeSync(fd, text.slice(0, half))
		if (ms > 0) sleepSync(ms)
		fs.writeSync(fd, text.slice(half))
	} finally {
		fs.closeSync(fd)
	}
}

// init's writes into $HOME; returns the lines the real init prints.
export function initHome () {
	const cfgDir = path.join(homeDir(), '.config', 'opentela')
	const out = []
	try {
		fs.mkdirSync(cfgDir, { recursive: true, mode: 0o755 })
	} catch (err) {
		throw new UserError(`Failed to create config directory ${cfgDir}: ${err.message}`)
	}
	out.push(`Config directory: ${cfgDir}`)
	const cfg = path.join(cfgDir, 'cfg.yaml')
	if (fs.existsSync(cfg)) {
		out.push(`Configuration file already exists at ${cfg}`)
	} else {
		fs.writeFileSync(cfg, 'port: "8092"\ntcpport: "43905"\n')
		out.push(`Default configuration written to ${cfg}`)
	}
	const accounts = path.join(cfgDir, 'accounts.json')
	if (fs.existsSync(accounts)) {
		let list
		try {
			list = JSON.parse(fs.readFileSync(accounts, 'utf8'))
			if (!Array.isArray(list)) throw new Error('not a list of accounts')
		} catch (err) {
			throw new UserError(`Failed to initialize wallet manager: failed to parse accounts file: ${err.message}`)
		}
		out.push('', 'A wallet already exists:', `  Public key:   ${list[0]?.public_key ?? ''}`, '', 'No changes were made to the existing wallet.')
		return out
	}
	const pub = crypto.randomBytes(32).toString('hex')
	const keyDir = path.join(cfgDir, 'accounts', pub)
	fs.mkdirSync(keyDir, { recursive: true, mode: 0o700 })
	fs.writeFileSync(path.join(keyDir, 'keypair.json'), JSON.stringify([...crypto.randomBytes(64)]), { mode: 0o600 })
	writeNonAtomic(accounts, JSON.stringify([{ public_key: pub, provider_id: `provider-${pub.slice(0, 8)}`, file: path.join(keyDir, 'keypair.json'), created_at: new Date().toISOString() }], null, 2) + '\n')
	out.push('', '✔ Wallet created', `  Public key:   ${pub}`, '')
	return out
}

export function dbPath (peerId) {
	return path.join(homeDir(), '.ocfcore', `ocfcore.${peerId}.db`)
}

// start: the node's database, as the real node opens it (cleanslate clears
// only the current PeerID's).
export function openDb (peerId) {
	const file = dbPath(peerId)
	fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o755 })
	fs.writeFileSync(file, `crdt store of ${peerId}\n`)
	return file
}

export function removeDb (file) {
	fs.rmSync(file, { force: true })
}

