// Persistent libp2p identity of a node: an Ed25519 private key stored in the
// config dir as its libp2p protobuf encoding (the same bytes go-libp2p's
// MarshalPrivateKey writes), file mode 0600.
//
// init and peer-id use only node:crypto and encode the key and PeerID by
// hand: loading js-libp2p costs a few hundred milliseconds of CPU per call,
// where the real otela (a Go binary) answers in milliseconds, and the lab
// runs these on many hosts sharing a few cores. start hands the same bytes
// to libp2p's own decoder (loadPrivateKey), and the mesh tests dial nodes by
// the PeerID printed here, so the two encodings are held equal.
import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { UserError } from './errors.js'

export const KEY_FILE = 'identity.key'

// Protobuf prefixes of libp2p's PrivateKey/PublicKey messages for Ed25519:
// field 1 (KeyType) = 1, field 2 (Data) of 64 (seed || public) or 32 bytes.
const PRIVATE_PREFIX = Buffer.from([0x08, 0x01, 0x12, 0x40])
const PUBLIC_PREFIX = Buffer.from([0x08, 0x01, 0x12, 0x20])
const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'

export class IdentityError extends UserError {}

export function keyPath (configDir) {
	return path.join(configDir, KEY_FILE)
}

function base58 (bytes) {
	let n = BigInt('0x' + bytes.toString('hex'))
	let out = ''
	while (n > 0n) {
		out = BASE58[Number(n % 58n)] + out
		n /= 58n
	}
	for (const b of bytes) {
		if (b !== 0) break
		out = '1' + out
	}
	return out
}

// PeerID of an Ed25519 public key: the identity multihash (code 0x00,
// length 36) of its protobuf encoding, in base58btc ("12D3KooW...").
function peerIdOfPublic (pub) {
	const proto = Buffer.concat([PUBLIC_PREFIX, pub])
	return base58(Buffer.concat([Buffer.from([0x00, proto.length]), proto]))
}

function generate () {
	const { privateKey, publicKey } = crypto.generateKeyPairSync('ed25519')
	const seed = Buffer.from(privateKey.export({ format: 'jwk' }).d, 'base64url')
	const pub = Buffer.from(publicKey.export({ format: 'jwk' }).x, 'base64url')
	return { bytes: Buffer.concat([PRIVATE_PREFIX, seed, pub]), pub }
}

function readKeyFile (configDir) {
	const file = keyPath(configDir)
	try {
		return fs.readFileSync(file)
	} catch (err) {
		if (err.code === 'ENOENT') {
			throw new IdentityError(`no identity in ${configDir}: run "otela init --config-dir ${configDir}" first`)
		}
		throw new IdentityError(`cannot read ${file}: ${err.message}`)
	}
}

function notAKey (configDir, why) {
	return new IdentityError(`${keyPath(configDir)} is not a libp2p private key (${why}): remove it and run "otela init" again`)
}

// The public half of a stored key, checked against its seed.
function publicOf (configDir, bytes) {
	if (bytes.length !== 68 || !bytes.subarray(0, 4).equals(PRIVATE_PREFIX)) {
		throw notAKey(configDir, 'not an Ed25519 key of 64 bytes')
	}
	const seed = bytes.subarray(4, 36)
	const pub = bytes.subarray(36, 68)
	const der = Buffer.concat([Buffer.from('302e020100300506032b657004220420', 'hex'), seed])
	const derived = crypto.createPublicKey(crypto.createPrivateKey({ key: der, format: 'der', type: 'pkcs8' }))
		.export({ format: 'jwk' }).x
	if (Buffer.from(derived, 'base64url').compare(pub) !== 0) throw notAKey(configDir, 'public key does not match its seed')
	return pub
}

// Creates configDir and its key unless the key already exists; returns
// { created, peerId }.
export function initIdentity (configDir) {
	fs.mkdirSync(configDir, { recursive: true, mode: 0o700 })
	const file = keyPath(configDir)
	if (fs.existsSync(file)) return { created: false, peerId: peerIdOf(configDir) }
	const key = generate()
	const tmp = `${file}.${process.pid}.tmp`
	fs.writeFileSync(tmp, key.bytes, { mode: 0o600 })
	fs.chmodSync(tmp, 0o600)
	fs.renameSync(tmp, file)
	return { created: true, peerId: peerIdOfPublic(key.pub) }
}

export function peerIdOf (configDir) {
	const bytes = readKeyFile(configDir)
	return peerIdOfPublic(publicOf(configDir, bytes))
}

// The key as libp2p's PrivateKey, for start.
export async function loadPrivateKey (configDir) {
	const bytes = readKeyFile(configDir)
	publicOf(configDir, bytes)
	const { privateKeyFromProtobuf } = await import('@libp2p/crypto/keys')
	try {
		return privateKeyFromProtobuf(new Uint8Array(bytes))
	} catch (err) {
		throw notAKey(configDir, err.message)
	}
}
