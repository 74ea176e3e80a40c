import type { ChainNetwork } from "./chain-types.js";

const GENESIS: Readonly<Record<string, ChainNetwork>> = {
  "000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f": "mainnet",
  "000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943": "testnet",
  "00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043": "testnet4",
  "00000008819873e925422c1ff0f99f7cc9bbb232af63a077a480a3633bee1ef6": "signet",
  "0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206": "regtest",
};

/** The network whose genesis block has this hash, or `null` for an unknown chain. */
export function networkFromGenesisHash(hash: string): ChainNetwork | null {
  return GENESIS[hash.toLowerCase()] ?? null;
}

/** Maps bitcoind's `getblockchaininfo.chain` (`main`, `test`, `testnet4`, `signet`, `regtest`). */
export function networkFromBitcoindChain(chain: string): ChainNetwork | null {
  switch (chain) {
    case "main": return "mainnet";
    case "test": return "testnet";
    case "testnet4": return "testnet4";
    case "signet": return "signet";
    case "regtest": return "regtest";
    default: return null;
  }
}
