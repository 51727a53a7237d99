// Lets the browser build of OpenUSD (emHdBindings) start in Node, main thread and pthreads alike: the file
// packager wants a page's location and fetches its .data with XMLHttpRequest, which this answers from the disk.
const fs = require("fs"), path = require("path");
const dir = process.env.USD_WASM_DIR;
globalThis.location = { pathname: "/" };
globalThis.XMLHttpRequest = class {
  open(method, url) { this.url = url; }
  send() {
    const b = fs.readFileSync(path.join(dir, path.basename(this.url)));
    this.status = 200;
    this.response = b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    setImmediate(() => this.onload && this.onload({}));
  }
};
