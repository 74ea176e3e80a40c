/**
 * TLS material of the devnet's LNURL service: a CA made at start and a server certificate it
 * signs for the host names the service answers for (DNS names, or IP addresses), so a wallet that
 * trusts the CA's PEM talks real, verified TLS to `https://<domain>/…`. Keys are RSA-2048 made by
 * Node's crypto; the certificates are written with node-forge (Node has no X.509 writer). The CA
 * signs nothing else and its key never leaves memory.
 *
 * | Certificate | Subject | Extensions |
 * |---|---|---|
 * | CA | `CN=tender devnet LNURL CA` | basicConstraints CA (critical), keyUsage keyCertSign + cRLSign (critical), subject key id |
 * | server | `CN=<first host>` | basicConstraints not CA, keyUsage digitalSignature + keyEncipherment (critical), extKeyUsage serverAuth, subjectAltName = the hosts, authority and subject key ids |
 */
import { generateKeyPair, randomBytes } from "node:crypto";
import { promisify } from "node:util";
import { isIP } from "node:net";
import forge from "node-forge";

/** The CA and the server certificate, PEM encoded. */
export interface LnurlTlsMaterial {
  /** The CA certificate a wallet trusts. */
  readonly caPem: string;
  /** The server certificate (signed by the CA) and its key. */
  readonly certPem: string;
  readonly keyPem: string;
  /** The names the server certificate is valid for. */
  readonly hosts: readonly string[];
}

const DAY_MS = 86_400_000;

const generateRsa = promisify(generateKeyPair);

/** An RSA-2048 key made off the main thread, as forge keys and PKCS#1 PEM. */
async function rsaKeys(): Promise<{ privateKey: forge.pki.rsa.PrivateKey; publicKey: forge.pki.rsa.PublicKey; pem: string }> {
  const { privateKey } = await generateRsa("rsa", { modulusLength: 2048 });
  const pem = privateKey.export({ type: "pkcs1", format: "pem" }).toString();
  const key = forge.pki.privateKeyFromPem(pem) as forge.pki.rsa.PrivateKey;
  return { privateKey: key, publicKey: forge.pki.setRsaPublicKey(key.n, key.e), pem };
}

/** A positive serial number (hex) of 16 random bytes. */
const serial = () => `01${randomBytes(16).toString("hex")}`;

/** Makes a CA and a server certificate for `hosts` (DNS names or IPs), valid from an hour ago for `validDays`. */
export async function makeLnurlTlsMaterial(hosts: readonly string[], validDays = 365): Promise<LnurlTlsMaterial> {
  if (hosts.length === 0) throw new Error("the LNURL certificate needs at least one host name");
  const notBefore = new Date(Date.now() - 3_600_000);
  const notAfter = new Date(Date.now() + validDays * DAY_MS);

  const [caKeys, leafKeys] = await Promise.all([rsaKeys(), rsaKeys()]);
  const ca = forge.pki.createCertificate();
  ca.publicKey = caKeys.publicKey;
  ca.serialNumber = serial();
  ca.validity.notBefore = notBefore;
  ca.validity.notAfter = notAfter;
  const caName = [{ name: "commonName", value: "tender devnet LNURL CA" }, { name: "organizationName", value: "tender devnet" }];
  ca.setSubject(caName);
  ca.setIssuer(caName);
  ca.setExtensions([
    { name: "basicConstraints", cA: true, critical: true },
    { name: "keyUsage", keyCertSign: true, cRLSign: true, critical: true },
    { name: "subjectKeyIdentifier" },
  ]);
  ca.sign(caKeys.privateKey, forge.md.sha256.create());

  const leaf = forge.pki.createCertificate();
  leaf.publicKey = leafKeys.publicKey;
  leaf.serialNumber = serial();
  leaf.validity.notBefore = notBefore;
  leaf.validity.notAfter = notAfter;
  leaf.setSubject([{ name: "commonName", value: hosts[0]! }]);
  leaf.setIssuer(ca.subject.attributes);
  leaf.setExtensions([
    { name: "basicConstraints", cA: false },
    { name: "keyUsage", digitalSignature: true, keyEncipherment: true, critical: true },
    { name: "extKeyUsage", serverAuth: true },
    { name: "subjectAltName", altNames: hosts.map((h) => (isIP(h) ? { type: 7, ip: h } : { type: 2, value: h })) },
    { name: "authorityKeyIdentifier", keyIdentifier: ca.generateSubjectKeyIdentifier().getBytes() },
    { name: "subjectKeyIdentifier" },
  ]);
  leaf.sign(caKeys.privateKey, forge.md.sha256.create());

  return { caPem: forge.pki.certificateToPem(ca), certPem: forge.pki.certificateToPem(leaf), keyPem: leafKeys.pem, hosts: [...hosts] };
}
