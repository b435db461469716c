import { unprocessable } from '../../../common/errors.ts'
import { WEIGHT_TRAINING } from '../rules/promotion.ts'
import type { AlsDeps } from './deps.ts'

/** Refuse a target type this instance has switched off (replay and proposals both ask). */
export function checkTargetEnabled(deps: AlsDeps, targetType: string): void {
  if (targetType === WEIGHT_TRAINING && !deps.settings.weightTrainingEnabled) {
    throw unprocessable(
      'weight_training_disabled',
      'Target type weight_training_candidate is disabled (ALS_WEIGHT_TRAINING_ENABLED=false).',
    )
  }
}
