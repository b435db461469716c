// The browser script is embedded as a file (`with { type: 'file' }`): its import is a path.
declare const path: string
export default path
