/** The cross-unit flows (test/flows.ts) with every unit in one process, as `svc suite --one-process` runs them. */
import { flows } from './flows.ts'

flows('one-process')
