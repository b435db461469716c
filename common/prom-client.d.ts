// prom-client's metric classes by their own modules (common/metrics.ts): the package index also
// loads the push gateway client, default metrics and the cluster aggregator, which no unit uses.
declare module 'prom-client/lib/counter' {
  export { Counter as default } from 'prom-client'
}
declare module 'prom-client/lib/gauge' {
  export { Gauge as default } from 'prom-client'
}
declare module 'prom-client/lib/histogram' {
  export { Histogram as default } from 'prom-client'
}
declare module 'prom-client/lib/registry' {
  export { Registry as default } from 'prom-client'
}
