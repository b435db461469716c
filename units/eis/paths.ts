/** Every EIS method lives under `/api/method/svc_erp_core.api.` (the spec's prefix P). */
export const METHOD_PREFIX = '/api/method/svc_erp_core.api.'
export const P = <const M extends string>(method: M) =>
  `${METHOD_PREFIX}${method}` as `/api/method/svc_erp_core.api.${M}`
