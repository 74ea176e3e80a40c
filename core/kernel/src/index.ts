/**
 * @tender/core — the microkernel: plugin contract, DI, configuration, persistence, HTTP host,
 * auth, events and the scheduler. Everything else is a plugin.
 */
import "reflect-metadata";

export { TENDER_VERSION } from "./version.js";
export * from "./tokens.js";
export { Kernel, hostService, type KernelOptions, type HostService } from "./kernel.js";
export * from "./plugin/contract.js";
export { orderPlugins, serviceProviders, PluginGraphError } from "./plugin/order.js";
export * from "./services/service-ref.js";
export { WalletScope, NoWalletError, type WalletService, type WalletServiceContext, type WalletServiceProvider } from "./services/wallet-scope.js";
export { AsyncLock } from "./concurrency/async-lock.js";
export { importPlugins, PluginImportError } from "./plugin/import-plugins.js";
export * from "./config/daemon-config.js";
export { parseCommandLine, USAGE, type Command } from "./config/argv.js";
export * from "./log/logger.js";
export * from "./events/event-bus.js";
export * from "./scheduler/scheduler.js";
export * from "./persistence/migration.js";
export { Database, type DatabaseLocation, type DatabaseModel } from "./persistence/database.js";
export { DatabaseClosedError } from "./persistence/pool-close-guard.js";
export { DurabilityError, WalSync, fsyncFile, type FileSync } from "./persistence/wal-sync.js";
export { LeanSql, sqlBool } from "./persistence/lean-sql.js";
export * from "./http/errors.js";
export * from "./http/route.js";
export { z } from "./http/zod.js";
export { AuthToken } from "./http/auth-token.js";
export { checkBearer } from "./http/auth-guard.js";
export { RequestRejection, isJsonContentType, queryBool, u32String, u64String, satAmount } from "./http/extract.js";
export { rejectUpgrade, type WebSocketRoute } from "./http/websocket.js";
export { generateOpenApi } from "./http/openapi.js";
export * from "./wallet/session.js";
export { ActionEngine, type ActionDefinition, type ActionStep, type StepOutcome, type ActionStatus, type ActionTimingObserver } from "./actions/action-engine.js";
export * from "./daemon/files.js";
export { InstanceLock, DatadirLockedError, LOCK_FILE } from "./daemon/instance-lock.js";
export { TOKEN_FILE, readTokenFile, writeTokenFile, loadOrCreateToken } from "./daemon/token-file.js";
export { main as tenderdMain, serve, type Distribution } from "./daemon/main.js";
export * from "./chain/index.js";
export * from "./bench/measure.js";
export * from "./bench/cpu-profile.js";
export * from "./bench/thread-cpu.js";
export { faultPoint, faultPointLine } from "./daemon/fault-injection.js";
export {
  IdempotencyLayer, ConflictError, IDEMPOTENCY_FAULT_POINTS, IDEMPOTENCY_KEY_HEADER, REPLAYED_HEADER, MOVEMENT_ID_HEADER, MAX_KEY_LENGTH,
  IDEMPOTENCY_RETENTION_MS, callerScope, type IdempotencyOptions,
} from "./idempotency/idempotency-layer.js";
export {
  pageQueryFields, pageRequest, wantsPage, compareKeys, encodeCursor, NEXT_CURSOR_HEADER, LINK_HEADER, MAX_PAGE_LIMIT, DEFAULT_PAGE_LIMIT,
  type PageKey, type PageOrder,
} from "./http/pagination.js";
export { spendingCap, SpendingCapService, CAP_WINDOW_MS } from "./access/spending-caps.js";
export { ForbiddenError, effectiveScope } from "./access/access-control.js";
export { ApiAccess } from "./access/api-access.js";
export { currentPrincipal } from "./access/access-context.js";
export { API_SCOPES, ApiKeyRevoked, SPEND_RAILS, scopeAllows, type ApiScope, type SpendRail, type SpendingCaps, type RailCap, type ApiKey, type Principal } from "./access/api-key.js";
export { API_KEY_PREFIX, parseApiKey } from "./access/api-key-secret.js";
export { WalletLockedError } from "./wallet/wallet-locked.js";
export { Metrics, withTimeout, type GaugeSample, type CollectedGaugeOptions, type MetricCounter, type MetricHistogram } from "./metrics/metrics.js";
export { Readiness, type CheckResult, type ReadinessCheck, type ReadinessReport } from "./health/readiness.js";
