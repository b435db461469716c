/** Service modes (docs/conventions.md §6), lowest to highest. */
export const SERVICE_MODES = ['warmup', 'observe_only', 'promotion_enabled'] as const
export type ServiceMode = (typeof SERVICE_MODES)[number]

/**
 * The mode the service actually runs in: the configured one, forced down to `warmup` when
 * persistence is unavailable (spec, ALS states: "any service mode → warmup (forced)").
 */
export function effectiveMode(configured: ServiceMode, persistenceReady: boolean): ServiceMode {
  return persistenceReady ? configured : 'warmup'
}

/** Only `promotion_enabled` lets proposals be made by promotions/propose or activated. */
export const promotionsAllowed = (mode: ServiceMode): boolean => mode === 'promotion_enabled'

/** In `warmup` runs are recorded but no learning signal is emitted. */
export const signalsAllowed = (mode: ServiceMode): boolean => mode !== 'warmup'
