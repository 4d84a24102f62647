// A stand-in for the GitHub REST API on 127.0.0.1, so that JUnit reporter
// actions can run offline: it accepts the check-run calls they make and
// logs each call, with the annotations it carries, as one JSON line.
// Usage: node fakeapi.mjs LOGFILE PORTFILE
import {createServer} from 'node:http'
import {appendFileSync, writeFileSync} from 'node:fs'

const [logFile, portFile] = process.argv.slice(2)
let nextID = 1

const server = createServer((req, res) => {
  let body = ''
  req.on('data', chunk => (body += chunk))
  req.on('end', () => {
    let data = {}
    try {
      data = body ? JSON.parse(body) : {}
    } catch {
      data = {unparsed: body.slice(0, 200)}
    }
    const out = data.output || {}
    appendFileSync(
      logFile,
      JSON.stringify({
        method: req.method,
        path: req.url,
        conclusion: data.conclusion,
        title: out.title,
        annotations: (out.annotations || []).map(a => ({
          path: a.path,
          line: a.start_line,
          level: a.annotation_level,
          title: a.title,
          message: String(a.message || '').split('\n').filter(l => l.trim())[0]
        }))
      }) + '\n'
    )
    const checkRun = req.url.match(/^\/repos\/[^/]+\/[^/]+\/check-runs(\/(\d+))?$/)
    if (!checkRun || !['POST', 'PATCH'].includes(req.method)) {
      res.writeHead(404, {'content-type': 'application/json'})
      res.end(JSON.stringify({message: 'Not Found (offline stand-in)'}))
      return
    }
    const id = checkRun[2] ? Number(checkRun[2]) : nextID++
    res.writeHead(req.method === 'POST' ? 201 : 200, {'content-type': 'application/json'})
    res.end(
      JSON.stringify({
        id,
        url: `http://127.0.0.1/check-runs/${id}`,
        html_url: `http://127.0.0.1/runs/${id}`
      })
    )
  })
})

server.listen(0, '127.0.0.1', () => writeFileSync(portFile, String(server.address().port)))
for (const sig of ['SIGINT', 'SIGTERM']) process.on(sig, () => server.close(() => process.exit(0)))
