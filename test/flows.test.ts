/** The cross-unit flows (test/flows.ts) with every unit its own process, as `svc suite` runs them. */
import { flows } from './flows.ts'

flows('processes')
