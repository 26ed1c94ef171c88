// Runs kafkajs admin and producer operations against a broker and prints
// what each returned, for tests/integration/test_kafkajs.py to check.
//
//   node driver.js <bootstrap> < steps.json
//
// stdin: a JSON array of steps, run in order:
//   {"op": "createTopics", "topics": [{"topic", "numPartitions", "configEntries": [{name, value}]}]}
//   {"op": "fetchTopicMetadata", "topics": [names]}
//   {"op": "fetchTopicOffsets", "topic": name}
//   {"op": "fetchTopicOffsetsByTimestamp", "topic": name, "timestamp": ms}
//   {"op": "describeConfigs", "topic": name}
//   {"op": "describeConfigs", "resources": [{"type": "TOPIC"|"BROKER", "name", "configNames"?}],
//    "includeSynonyms": bool}
//   {"op": "alterConfigs", "validateOnly": bool,
//    "resources": [{"type": "TOPIC"|"BROKER", "name", "configEntries": [{name, value}]}]}
//   {"op": "listTopics"}
//   {"op": "deleteTopics", "topics": [names]}
//   {"op": "send", "topic": name, "acks": -1, "compression": "gzip"|null,
//    "messages": [{"key": b64|null, "value": b64|null, "headers": {name: b64},
//                  "partition": n, "timestamp": ms}]}
// stdout: one JSON line, {"results": [...]}, one entry per step: either
// {"ok": <what kafkajs returned>} or {"error": {name, type, code, message,
// errors: [{name, type, code, message}]}}. Exits 0 once every step ran;
// anything else (bad input, a connect failure) exits 1 with the error on
// stderr.
'use strict'

const { Kafka, logLevel, CompressionTypes, ConfigResourceTypes } = require('kafkajs')

const TIMEOUT_MS = 30000

function describeError(e) {
  const one = x => ({ name: x.name, type: x.type || null, code: x.code === undefined ? null : x.code, message: x.message })
  return Object.assign(one(e), { errors: Array.isArray(e.errors) ? e.errors.map(one) : [] })
}

const b64 = s => (s === null || s === undefined ? null : Buffer.from(s, 'base64'))

async function runStep(admin, producer, step) {
  switch (step.op) {
    case 'createTopics':
      return admin.createTopics({
        topics: step.topics.map(t => ({ replicationFactor: 1, ...t })),
        waitForLeaders: true,
        timeout: TIMEOUT_MS,
      })
    case 'fetchTopicMetadata':
      return admin.fetchTopicMetadata({ topics: step.topics })
    case 'fetchTopicOffsets':
      return admin.fetchTopicOffsets(step.topic)
    case 'fetchTopicOffsetsByTimestamp':
      return admin.fetchTopicOffsetsByTimestamp(step.topic, step.timestamp)
    case 'describeConfigs':
      if (step.resources) {
        return admin.describeConfigs({
          resources: step.resources.map(r => ({ ...r, type: ConfigResourceTypes[r.type] })),
          includeSynonyms: !!step.includeSynonyms,
        })
      }
      return admin.describeConfigs({
        resources: [{ type: ConfigResourceTypes.TOPIC, name: step.topic }],
        includeSynonyms: false,
      })
    case 'alterConfigs':
      return admin.alterConfigs({
        validateOnly: !!step.validateOnly,
        resources: step.resources.map(r => ({ ...r, type: ConfigResourceTypes[r.type] })),
      })
    case 'listTopics':
      return admin.listTopics()
    case 'deleteTopics':
      return admin.deleteTopics({ topics: step.topics, timeout: TIMEOUT_MS })
    case 'send': {
      const messages = step.messages.map(m => {
        const msg = { key: b64(m.key), value: b64(m.value), partition: m.partition }
        if (m.headers) {
          msg.headers = {}
          for (const [k, v] of Object.entries(m.headers)) msg.headers[k] = b64(v)
        }
        if (m.timestamp !== undefined) msg.timestamp = String(m.timestamp)
        return msg
      })
      return producer.send({
        topic: step.topic,
        messages,
        acks: step.acks === undefined ? -1 : step.acks,
        timeout: TIMEOUT_MS,
        compression: step.compression === 'gzip' ? CompressionTypes.GZIP : CompressionTypes.None,
      })
    }
    default:
      throw new Error(`unknown op ${step.op}`)
  }
}

async function main() {
  const bootstrap = process.argv[2]
  if (!bootstrap) throw new Error('usage: node driver.js <bootstrap> < steps.json')
  const steps = JSON.parse(require('fs').readFileSync(0, 'utf8'))
  const kafka = new Kafka({
    clientId: 'strata-it-kafkajs',
    brokers: [bootstrap],
    logLevel: logLevel.NOTHING,
    connectionTimeout: 10000,
    requestTimeout: TIMEOUT_MS,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 2000 },
  })
  const admin = kafka.admin()
  const producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false })
  await admin.connect()
  await producer.connect()
  const results = []
  try {
    for (const step of steps) {
      try {
        const r = await runStep(admin, producer, step)
        results.push({ ok: r === undefined ? null : r })
      } catch (e) {
        results.push({ error: describeError(e) })
      }
    }
  } finally {
    await producer.disconnect()
    await admin.disconnect()
  }
  process.stdout.write(JSON.stringify({ results }) + '\n')
}

main().then(
  () => process.exit(0),
  e => {
    process.stderr.write(`driver.js: ${e && e.stack ? e.stack : e}\n`)
    process.exit(1)
  }
)
