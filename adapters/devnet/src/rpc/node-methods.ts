import { InvalidInputError } from "../node/devnet-node.js";
import { classifyScript, scriptOf, witnessProgram } from "../node/address.js";
import { btcPerKvb } from "./core-amount.js";
import { RpcError, RpcErrorCode } from "./rpc-error.js";
import type { RpcMethodTable } from "./rpc-method.js";

/** The version the devnet reports in `getnetworkinfo` (Bitcoin Core 28.0 API). */
export const DEVNET_RPC_VERSION = 280000;

/** Fee estimation, mining, address validation and node info. */
export const nodeMethods: RpcMethodTable = {
  estimatesmartfee: {
    params: ["conf_target", "estimate_mode"],
    run: (ctx, p) => {
      const target = p.int(0);
      if (target < 1 || target > 1008) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "Invalid conf_target, must be between 1 and 1008");
      const mode = p.opt(1) ?? "economical";
      if (typeof mode !== "string" || !["unset", "economical", "conservative"].includes(mode.toLowerCase())) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "Invalid estimate_mode parameter, must be one of: \"unset\", \"economical\", \"conservative\"");
      return { feerate: btcPerKvb(ctx.node.estimateFeeRate(target)), blocks: target };
    },
  },
  generatetoaddress: {
    params: ["nblocks", "address", "maxtries"],
    run: (ctx, p) => {
      const n = p.int(0);
      const address = p.str(1);
      if (n < 0) throw new RpcError(RpcErrorCode.INVALID_PARAMETER, "nblocks must be non-negative");
      try {
        scriptOf(address);
      } catch {
        throw new RpcError(RpcErrorCode.INVALID_ADDRESS_OR_KEY, "Error: Invalid address");
      }
      return ctx.node.mine(n, address);
    },
  },
  validateaddress: {
    params: ["address"],
    run: (_ctx, p) => {
      const address = p.str(0);
      let script: Uint8Array;
      try {
        script = scriptOf(address);
      } catch (err) {
        if (!(err instanceof InvalidInputError)) throw err;
        return { isvalid: false, error_locations: [], error: "Invalid or unsupported Segwit (Bech32) or Base58 encoding." };
      }
      const type = classifyScript(script);
      const wp = witnessProgram(script);
      const out: Record<string, unknown> = {
        isvalid: true,
        address,
        scriptPubKey: Buffer.from(script).toString("hex"),
        isscript: type === "p2sh" || type === "v0_p2wsh",
        iswitness: wp !== undefined,
      };
      if (wp) {
        out.witness_version = wp.version;
        out.witness_program = Buffer.from(wp.program).toString("hex");
      }
      return out;
    },
  },
  getnetworkinfo: {
    params: [],
    run: (ctx) => ({
      version: DEVNET_RPC_VERSION,
      subversion: "/tender-devnet:0.1.0/",
      protocolversion: 70016,
      localservices: "0000000000000c09",
      localservicesnames: ["NETWORK", "WITNESS", "NETWORK_LIMITED", "P2P_V2"],
      localrelay: true,
      timeoffset: 0,
      networkactive: true,
      connections: 0,
      connections_in: 0,
      connections_out: 0,
      networks: [
        { name: "ipv4", limited: false, reachable: true, proxy: "", proxy_randomize_credentials: false },
        { name: "ipv6", limited: false, reachable: true, proxy: "", proxy_randomize_credentials: false },
        { name: "onion", limited: true, reachable: false, proxy: "", proxy_randomize_credentials: false },
        { name: "i2p", limited: true, reachable: false, proxy: "", proxy_randomize_credentials: false },
        { name: "cjdns", limited: true, reachable: false, proxy: "", proxy_randomize_credentials: false },
      ],
      relayfee: btcPerKvb(ctx.node.mempoolInfo().minRelayFeeSatPerVb),
      incrementalfee: btcPerKvb(1),
      localaddresses: [],
      warnings: [],
    }),
  },
  getconnectioncount: { params: [], run: () => 0 },
  uptime: { params: [], run: (ctx) => Math.floor((Date.now() - ctx.startedAt) / 1000) },
  ping: { params: [], run: () => null },
};
