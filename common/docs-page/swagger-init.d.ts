// Imported `with { type: 'file' }`: the embedded file's path.
declare const path: string
export default path
