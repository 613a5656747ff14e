// A tiny static file server for the browser suite.
//
// Serves one directory (the built book) on 127.0.0.1 only, on a free port that
// the kernel picks, and writes that port to a file so `run` can find it. It
// never listens on a public interface, answers only GET and HEAD, refuses paths
// that escape the root, and exits by itself after a time limit so that a
// forgotten server cannot outlive the suite.
//
//     node serve.mjs ROOT PORT_FILE [MAX_SECONDS]

import http from 'node:http';
import fs from 'node:fs';
import path from 'node:path';

const [root, portFile, maxSeconds = '300'] = process.argv.slice(2);
if (!root || !portFile) {
    console.error('usage: node serve.mjs ROOT PORT_FILE [MAX_SECONDS]');
    process.exit(2);
}
const rootDir = path.resolve(root);

const TYPES = {
    '.html': 'text/html; charset=utf-8',
    '.js': 'text/javascript; charset=utf-8',
    '.mjs': 'text/javascript; charset=utf-8',
    '.css': 'text/css; charset=utf-8',
    '.json': 'application/json',
    '.svg': 'image/svg+xml',
    '.png': 'image/png',
    '.jpg': 'image/jpeg',
    '.jpeg': 'image/jpeg',
    '.gif': 'image/gif',
    '.ico': 'image/x-icon',
    '.woff': 'font/woff',
    '.woff2': 'font/woff2',
    '.ttf': 'font/ttf',
    '.txt': 'text/plain; charset=utf-8',
};

const server = http.createServer((req, res) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
        res.writeHead(405).end();
        return;
    }
    let pathname;
    try {
        pathname = decodeURIComponent(new URL(req.url, 'http://127.0.0.1').pathname);
    } catch {
        res.writeHead(400).end();
        return;
    }
    let file = path.join(rootDir, pathname);
    if (file !== rootDir && !file.startsWith(rootDir + path.sep)) {
        res.writeHead(403).end();
        return;
    }
    fs.stat(file, (err, stat) => {
        if (!err && stat.isDirectory()) {
            file = path.join(file, 'index.html');
        }
        fs.readFile(file, (err, body) => {
            if (err) {
                res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
                return;
            }
            const type = TYPES[path.extname(file).toLowerCase()] || 'application/octet-stream';
            res.writeHead(200, { 'content-type': type, 'content-length': body.length, 'cache-control': 'no-store' });
            res.end(req.method === 'HEAD' ? undefined : body);
        });
    });
});

server.listen(0, '127.0.0.1', () => {
    const { port } = server.address();
    // Written to a temporary name and renamed, so the reader never sees half a number.
    fs.writeFileSync(portFile + '.tmp', String(port));
    fs.renameSync(portFile + '.tmp', portFile);
    console.log(`serving ${rootDir} on http://127.0.0.1:${port}/`);
});

// Ends by itself: the suite must never leave a server behind.
setTimeout(() => {
    console.error(`serve.mjs: ${maxSeconds} s limit reached, exiting`);
    process.exit(0);
}, Number(maxSeconds) * 1000).unref();
for (const signal of ['SIGTERM', 'SIGINT']) {
    process.on(signal, () => process.exit(0));
}
