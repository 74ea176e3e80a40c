/**
 * The copy-paste recipe `npm start` prints once everything is up: create a wallet, fund it from
 * the devnet faucet, board, and pay another wallet. Pure text, so it can be tested.
 */

/** Where the pieces listen. */
export interface RecipeEndpoints {
  /** Daemon base URL, e.g. `http://127.0.0.1:3000`. */
  readonly daemon: string;
  readonly datadir: string;
  readonly esplora: string;
  readonly control: string;
  readonly ark: string;
  /** Confirmations the Ark server wants before it registers a board. */
  readonly boardConfirmations: number;
  /** Config file the daemon was started with (for a second daemon). */
  readonly configFile: string;
  /** Port for the second daemon (Bob): free when the recipe is printed. */
  readonly bobPort: number;
}

const json = (v: unknown) => `'${JSON.stringify(v)}'`;

/** The recipe, as lines of shell. */
export function startRecipe(e: RecipeEndpoints): string {
  const createBody = json({ network: "regtest", ark_server: e.ark, chain_source: { esplora: { url: e.esplora } } });
  return [
    "# tender devnet: chain, Ark server and daemon are running. In another shell:",
    `TOKEN=$(npx tenderd --datadir ${e.datadir} secret show)`,
    `API=${e.daemon}/api/v1; AUTH="Authorization: Bearer $TOKEN"; JSON="content-type: application/json"`,
    "",
    "# 1. create a wallet",
    `curl -s -H "$AUTH" -H "$JSON" -d ${createBody} $API/wallet/create`,
    "",
    "# 2. fund it on-chain from the devnet faucet, mine a block, sync",
    `ADDR=$(curl -s -X POST -H "$AUTH" $API/onchain/addresses/next | sed -E 's/.*"address":"([^"]+)".*/\\1/')`,
    `curl -s -H "$JSON" -d "{\\"address\\":\\"$ADDR\\",\\"amount_sat\\":1000000}" ${e.control}/faucet`,
    `curl -s -H "$JSON" -d '{"blocks":1}' ${e.control}/mine`,
    `curl -s -X POST -H "$AUTH" $API/onchain/sync; curl -s -H "$AUTH" $API/onchain/balance`,
    "",
    `# 3. board 500 000 sat onto Ark; the server registers it after ${e.boardConfirmations} confirmation(s)`,
    `curl -s -H "$AUTH" -H "$JSON" -d '{"amount_sat":500000}' $API/boards/board-amount`,
    `curl -s -H "$JSON" -d '{"blocks":${e.boardConfirmations}}' ${e.control}/mine`,
    `sleep 3; curl -s -H "$AUTH" $API/boards/pending    # [] once registered`,
    `curl -s -H "$AUTH" $API/history`,
    "",
    `# 4. pay another wallet: a second daemon (Bob) on port ${e.bobPort} with its own wallet and Ark address`,
    `BOBAPI=http://127.0.0.1:${e.bobPort}/api/v1`,
    `npx tenderd --datadir ${e.datadir}-bob --port ${e.bobPort} --config ${e.configFile} > ${e.datadir}-bob.log 2>&1 &`,
    `for i in $(seq 60); do curl -s http://127.0.0.1:${e.bobPort}/ping > /dev/null && break; sleep 1; done`,
    `curl -s http://127.0.0.1:${e.bobPort}/ping > /dev/null || { echo "Bob's daemon does not answer; the end of its log:"; tail -n 20 ${e.datadir}-bob.log; }`,
    `BOBAUTH="Authorization: Bearer $(npx tenderd --datadir ${e.datadir}-bob secret show)"`,
    `curl -s -H "$BOBAUTH" -H "$JSON" -d ${createBody} $BOBAPI/wallet/create`,
    `BOB=$(curl -s -X POST -H "$BOBAUTH" $BOBAPI/wallet/addresses/next | sed -E 's/.*"address":"([^"]+)".*/\\1/')`,
    `curl -s -H "$AUTH" -H "$JSON" -d "{\\"destination\\":\\"$BOB\\",\\"amount_sat\\":100000}" $API/wallet/send`,
    `sleep 2; curl -s -H "$BOBAUTH" $BOBAPI/wallet/balance; curl -s -H "$BOBAUTH" $BOBAPI/history`,
    "",
    "# Ctrl-C stops the daemon, the Ark server and the chain (their state stays on disk); stop Bob with `kill %1`.",
  ].join("\n");
}
