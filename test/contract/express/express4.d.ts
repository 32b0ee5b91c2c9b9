// Express 4 is installed as `express4` (an npm alias) for the tests; it is typed here like Express 5,
// whose types the adapter compiles against.
declare module 'express4' {
  import express from 'express';
  export default express;
}
