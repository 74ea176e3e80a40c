/**
 * What a handler must answer in situations barkd's behaviour fixes, for requests that reach it:
 * the operation's documented status for that situation (a destination that is no destination is
 * a 400, never a 500; an unknown VTXO id is a 404; create while a wallet is loaded is 400
 * "Wallet already set"; ...). Situations not listed here are only held to the documented
 * statuses of the operation.
 */
import { bech32, bech32m } from "@scure/base";
import { address as btcAddress, networks } from "bitcoinjs-lib";

/** What the fuzzer knows of the wallet under test while it runs. */
export interface WalletFacts {
  readonly fingerprint: string;
  /** Ids of the VTXOs the wallet has ever held (they never disappear from `?all=true`). */
  readonly vtxoIds: ReadonlySet<string>;
  /** Ids of the wallet's movements (updated whenever the runner reads the history). */
  readonly movementIds: ReadonlySet<number>;
  /** Highest Ark address index derived before the run (every index up to it can be peeked). */
  readonly derivedIndex: number;
}

export interface Expectation {
  readonly statuses: readonly number[];
  readonly why: string;
  /** The `message` barkd gives (when it is fixed). */
  readonly message?: string;
}

const NETWORKS = [networks.bitcoin, networks.testnet, networks.regtest];

/** A segwit address of `hrp` (BIP-173 for version 0, BIP-350 for versions 1 to 16). */
function isSegwit(s: string, hrp: string): boolean {
  if (s.length > 90 || (s !== s.toLowerCase() && s !== s.toUpperCase())) return false;
  const lower = s.toLowerCase();
  if (!lower.startsWith(`${hrp}1`)) return false;
  for (const [codec, v0] of [[bech32, true], [bech32m, false]] as const) {
    try {
      const { prefix, words } = codec.decode(lower as `${string}1${string}`, 90);
      const version = words[0]!;
      const program = codec.fromWords(words.slice(1));
      if (prefix !== hrp || (version === 0) !== v0 || version > 16) continue;
      if (version === 0 ? program.length === 20 || program.length === 32 : program.length >= 2 && program.length <= 40) return true;
    } catch {
      /* the other codec */
    }
  }
  return false;
}

/** Whether `s` is a bitcoin address of `network` (or of any network). */
export function isBitcoinAddress(s: string, network?: "regtest"): boolean {
  if (s.length > 100) return false;
  return (network ? [networks.regtest] : NETWORKS).some((n) => {
    if (isSegwit(s, n.bech32)) return true;
    try {
      const { version } = btcAddress.fromBase58Check(s);
      return version === n.pubKeyHash || version === n.scriptHash;
    } catch {
      return false;
    }
  });
}

const VTXO_ID = /^[0-9a-f]{64}:(0|[1-9]\d{0,8})$/;
const PAYMENT_METHOD_TYPES = ["ark", "bitcoin", "output-script", "invoice", "offer", "lightning-address", "lnurl", "custom"];

/**
 * A `send` destination that no kind of barkd's recognizes, whatever parser details. barkd hands
 * the destination to each parser as given: none of them takes surrounding whitespace.
 */
export function isNoDestination(raw: string): boolean {
  const s = raw;
  if (s !== s.trim()) return true;
  const lower = s.toLowerCase().replace(/^lightning:/, "");
  if (/^(t?ark1|ln|bitcoin:)/.test(lower) || s.includes("@") || lower.includes("lnurl")) return false;
  return !isBitcoinAddress(s);
}

/** A BOLT11 invoice or LNURL (bech32 with a checksum) whose checksum or characters are wrong. */
export function isMalformedLightning(raw: string): boolean {
  const lower = raw.trim().toLowerCase().replace(/^lightning:/, "");
  if (!lower.startsWith("ln") || lower.startsWith("lno")) return false; // BOLT12 offers carry no checksum
  for (const codec of [bech32, bech32m]) {
    try {
      codec.decode(lower as `${string}1${string}`, 100_000);
      return false;
    } catch {
      /* try the next */
    }
  }
  return true;
}

type Req = { method: string; path: string; params: Record<string, string>; query: [string, string][]; body: unknown };

const str = (v: unknown): string | undefined => (typeof v === "string" ? v : undefined);

/** The expectation for a request that reached the handler, or `undefined` when no rule applies. */
export function handlerExpectation(r: Req, facts: WalletFacts): Expectation | undefined {
  const body = (r.body ?? {}) as Record<string, unknown>;
  switch (`${r.method} ${r.path}`) {
    case "POST /api/v1/wallet/create":
    case "POST /api/v1/wallet":
      return { statuses: [400], why: "a wallet is loaded (force does not override it)", message: "Wallet already set" };
    case "DELETE /api/v1/wallet":
      if (body.dangerous !== true) return { statuses: [400], why: "dangerous is not true", message: "deletion not confirmed: set dangerous=true" };
      if (body.fingerprint !== facts.fingerprint) return { statuses: [400], why: "another fingerprint", message: "Fingerprint does not match the loaded wallet" };
      return undefined;
    case "GET /api/v1/wallet/mnemonic":
      return { statuses: [404], why: "the mnemonic endpoint is disabled", message: "Mnemonic endpoint is disabled" };
    case "GET /api/v1/wallet/addresses/index/{index}": {
      const n = Number(r.params.index);
      if (n <= facts.derivedIndex) return { statuses: [200], why: "an index derived before the run" };
      if (n > 1_000_000) return { statuses: [500], why: "an index never derived" };
      return undefined;
    }
    case "GET /api/v1/wallet/vtxos/{id}":
    case "GET /api/v1/wallet/vtxos/{id}/encoded": {
      const id = r.params.id ?? "";
      if (facts.vtxoIds.has(id)) return { statuses: [200], why: "a VTXO of the wallet" };
      if (VTXO_ID.test(id)) return { statuses: [404], why: "a well-formed id of no VTXO of the wallet" };
      const [txid] = id.split(":");
      if (!id.includes(":") || !/^[0-9a-fA-F]{64}$/.test(txid ?? "")) return { statuses: [400], why: "not a VTXO id (txid:vout)" };
      return undefined;
    }
    case "POST /api/v1/wallet/send": {
      const d = str(body.destination);
      if (d !== undefined && isNoDestination(d)) return { statuses: [400], why: "a destination of no kind barkd pays", message: "Argument is not a valid destination. Supported are: ark addresses, bolt11 invoices, bolt12 offers and lightning addresses" };
      if (d !== undefined && isMalformedLightning(d)) return { statuses: [400], why: "a malformed Lightning destination (its bech32 does not decode), which barkd refuses as no destination" };
      if (d !== undefined && isBitcoinAddress(d)) return { statuses: [500], why: "a bitcoin address (barkd: on-chain payments go through send-onchain)" };
      return undefined;
    }
    case "POST /api/v1/onchain/send":
    case "POST /api/v1/onchain/drain": {
      const d = str(body.destination);
      if (d !== undefined && !isBitcoinAddress(d, "regtest")) return { statuses: [400], why: "not an address of the wallet's network" };
      return undefined;
    }
    case "POST /api/v1/onchain/send-many": {
      const list = Array.isArray(body.destinations) ? body.destinations.filter((x): x is string => typeof x === "string") : [];
      const bad = list.find((e) => {
        const i = e.indexOf(":");
        return i < 0 || !isBitcoinAddress(e.slice(0, i), "regtest") || /^\s*\d*\s*$/.test(e.slice(i + 1));
      });
      if (bad !== undefined) return { statuses: [400], why: `destination ${JSON.stringify(bad.slice(0, 80))} is not address:amount-with-unit of the wallet's network` };
      return undefined;
    }
    case "GET /api/v1/history": {
      const type = r.query.find(([k]) => k === "type")?.[1];
      const value = r.query.find(([k]) => k === "value")?.[1];
      if ((type === undefined) !== (value === undefined)) return { statuses: [400], why: "type and value must be supplied together", message: "`type` and `value` must be supplied together" };
      if (type !== undefined && !PAYMENT_METHOD_TYPES.includes(type)) return { statuses: [400], why: "unknown payment method type" };
      // every type but `custom` parses its value: nothing parses from an empty value, whitespace or non-ASCII
      if (type !== undefined && type !== "custom" && (value === "" || /[\s\u0000-\u001f\u007f-\uffff]/.test(value ?? ""))) {
        return { statuses: [400], why: `a value no ${type} parser takes` };
      }
      if (type === "output-script" && !/^([0-9a-fA-F]{2})*$/.test(value ?? "")) return { statuses: [400], why: "an output script that is not hex" };
      return undefined;
    }
    case "POST /api/v1/history/{id}/metadata": {
      const id = Number(r.params.id);
      return facts.movementIds.has(id) ? { statuses: [200], why: "a movement of the wallet" } : { statuses: [500], why: "no movement with that id" };
    }
    case "POST /api/v1/wallet/import-vtxo": {
      const list = Array.isArray(body.vtxos) ? body.vtxos : [];
      if (list.length === 0) return { statuses: [400], why: "no VTXOs", message: "No VTXOs provided" };
      const first = str(list[0]) ?? "";
      if (!/^([0-9a-fA-F]{2})*$/.test(first) || first === "") return { statuses: [400], why: "the first VTXO is not hex" };
      return undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Operations barkd answers without a 500 whatever happens: they read memory (wallet presence,
 * connection state, cached server info and fee rates, the on-chain wallet's balance and coins),
 * and a failed VTXO lookup is reported as 404. `POST /wallet/sync` logs its errors and answers 200.
 */
export const NEVER_500 = new Set([
  "GET /api/v1/wallet", "GET /api/v1/wallet/connected", "GET /api/v1/wallet/ark-info", "GET /api/v1/wallet/vtxos/{id}",
  "GET /api/v1/wallet/vtxos/{id}/encoded", "GET /api/v1/fees/onchain", "GET /api/v1/onchain/balance", "GET /api/v1/onchain/utxos",
  "POST /api/v1/wallet/sync", "GET /api/v1/notifications/ws/ticket", "GET /ping", "POST /api/v1/message/verify",
]);
