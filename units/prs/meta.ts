import { unitMeta } from '../../common/unit-meta.ts'

export const meta = unitMeta({
  name: 'prs',
  title: 'platform registry service',
  port: 18092,
  liveness: '/health',
})
