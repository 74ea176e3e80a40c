/**
 * Segwit addresses (BIP-173 bech32 for version 0, BIP-350 bech32m for versions 1 to 16), as the
 * ChainSource contract's test wallet needs them: its own address, and output scripts for the
 * addresses it pays.
 */
const CHARSET = "qpzry9x8gf2tvdw0s3jn54khce6mua7l";
const GENERATORS = [0x3b6a57b2, 0x26508e6d, 0x1ea119fa, 0x3d4233dd, 0x2a1462b3];
const BECH32_CONST = 1;
const BECH32M_CONST = 0x2bc830a3;

function polymod(values: readonly number[]): number {
  let chk = 1;
  for (const v of values) {
    const top = chk >>> 25;
    chk = ((chk & 0x1ffffff) << 5) ^ v;
    for (let i = 0; i < 5; i++) if ((top >>> i) & 1) chk ^= GENERATORS[i]!;
  }
  return chk >>> 0;
}

function hrpExpand(hrp: string): number[] {
  const codes = [...hrp].map((c) => c.charCodeAt(0));
  return [...codes.map((c) => c >>> 5), 0, ...codes.map((c) => c & 31)];
}

/** Regroups `data` from `from`-bit to `to`-bit words; `pad` completes the last word with zeros. */
function convertBits(data: Iterable<number>, from: number, to: number, pad: boolean): number[] | null {
  let acc = 0;
  let bits = 0;
  const out: number[] = [];
  const max = (1 << to) - 1;
  for (const v of data) {
    acc = (acc << from) | v;
    bits += from;
    while (bits >= to) {
      bits -= to;
      out.push((acc >>> bits) & max);
    }
  }
  if (pad && bits > 0) out.push((acc << (to - bits)) & max);
  else if (!pad && (bits >= from || ((acc << (to - bits)) & max) !== 0)) return null;
  return out;
}

/** The address of witness `program` of `version` on the network with human-readable part `hrp` (`bc`, `tb`, `bcrt`). */
export function encodeSegwitAddress(hrp: string, version: number, program: Uint8Array): string {
  const data = [version, ...convertBits(program, 8, 5, true)!];
  const mod = polymod([...hrpExpand(hrp), ...data, 0, 0, 0, 0, 0, 0]) ^ (version === 0 ? BECH32_CONST : BECH32M_CONST);
  const checksum = Array.from({ length: 6 }, (_, i) => (mod >>> (5 * (5 - i))) & 31);
  return `${hrp}1${[...data, ...checksum].map((d) => CHARSET[d]).join("")}`;
}

/** The output script (`OP_n <program>`) a segwit address pays; throws for anything else. */
export function segwitScriptOf(address: string): Uint8Array {
  const fail = (): never => {
    throw new Error(`not a segwit address: ${address}`);
  };
  const lower = address.toLowerCase();
  const sep = lower.lastIndexOf("1");
  if (sep < 1 || lower.length - sep < 7 || (address !== lower && address !== address.toUpperCase())) fail();
  const hrp = lower.slice(0, sep);
  const data = [...lower.slice(sep + 1)].map((c) => CHARSET.indexOf(c));
  if (data.some((d) => d < 0)) fail();
  const version = data[0]!;
  const check = polymod([...hrpExpand(hrp), ...data]);
  if (check !== (version === 0 ? BECH32_CONST : BECH32M_CONST) || version > 16) fail();
  const program = convertBits(data.slice(1, -6), 5, 8, false);
  if (!program || program.length < 2 || program.length > 40 || (version === 0 && program.length !== 20 && program.length !== 32)) fail();
  return Uint8Array.from([version === 0 ? 0 : 0x50 + version, program!.length, ...program!]);
}
