// Persistent libp2p identity of a node: an Ed25519 private key stored in the
// config dir as its libp2p protobuf encoding (the same bytes go-libp2p's
// MarshalPrivateKey writes), file mode 0600.
import fs from 'node:fs'
import path from 'node:path'
import { generateKeyPair, privateKeyToProtobuf, privateKeyFromProtobuf } from '@libp2p/crypto/keys'
import { peerIdFromPrivateKey } from '@libp2p/peer-id'

export const KEY_FILE = 'identity.key'

export function keyPath (configDir) {
	return path.join(configDir, KEY_FILE)
}

// Creates configDir and its key unless the key already exists; returns
// { created, peerId }.
export async function initIdentity (configDir) {
	fs.mkdirSync(configDir, { recursive: true, mode: 0o700 })
	const file = keyPath(configDir)
	if (fs.existsSync(file)) {
		const key = loadIdentity(configDir)
		return { created: false, peerId: peerIdFromPrivateKey(key).toString() }
	}
	const key = await generateKeyPair('Ed25519')
	const tmp = `${file}.${process.pid}.tmp`
	fs.writeFileSync(tmp, privateKeyToProtobuf(key), { mode: 0o600 })
	fs.chmodSync(tmp, 0o600)
	fs.renameSync(tmp, file)
	return { created: true, peerId: peerIdFromPrivateKey(key).toString() }
}

import { UserError } from './errors.js'

export class IdentityError extends UserError {}

export function loadIdentity (configDir) {
	const file = keyPath(configDir)
	let bytes
	try {
		bytes = fs.readFileSync(file)
	} catch (err) {
		if (err.code === 'ENOENT') {
			throw new IdentityError(`no identity in ${configDir}: run "otela init --config-dir ${configDir}" first`)
		}
		throw new IdentityError(`cannot read ${file}: ${err.message}`)
	}
	try {
		return privateKeyFromProtobuf(new Uint8Array(bytes))
	} catch (err) {
		throw new IdentityError(`${file} is not a libp2p private key (${err.message}): remove it and run "otela init" again`)
	}
}

export function peerIdOf (configDir) {
	return peerIdFromPrivateKey(loadIdentity(configDir)).toString()
}
