// Redoc's standalone bundle, imported `with { type: 'file' }` (embedded in the executable).
declare module 'redoc/bundles/redoc.standalone.js' {
  const path: string
  export default path
}
