// Runs kafkajs admin, producer, transaction and consumer operations against a
// broker and prints what each returned, for tests/integration/test_kafkajs.py
// and test_kafkajs_transactions.py to check.
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
// Transactions: each transactional producer has a name (several may share a
// transactionalId: the later one's first transaction() fences the earlier):
//   {"op": "txnProducer", "name", "transactionalId", "transactionTimeout"?}
//       kafka.producer({transactionalId, idempotent: true, maxInFlightRequests: 1}), connected
//   {"op": "begin", "producer": name}          producer.transaction() (InitProducerId the first time)
//   {"op": "txnSend", "producer": name, "topic", "messages": as for "send"}
//   {"op": "sendOffsets", "producer": name, "consumerGroupId",
//    "topics": [{"topic", "partitions": [{"partition", "offset"}]}]}
//   {"op": "commit" | "abort", "producer": name}
//   {"op": "fetchOffsets", "groupId", "topics": [names]}     admin.fetchOffsets
//   {"op": "consume", "topic", "groupId", "readUncommitted": bool}
//       a kafkajs consumer (autoCommit off, from the beginning) reads until
//       its position reaches, on every partition, the end admin.fetchTopicOffsets
//       gave before it started (the last stable offset); returns the
//       messages [{partition, offset, key, value}] (key, value base64)
// stdout: one JSON line, {"results": [...]}, one entry per step: either
// {"ok": <what kafkajs returned>} or {"error": {name, type, code, message,
// errors: [{name, type, code, message}], cause: {...}|null}}. Exits 0 once
// every step ran; anything else (bad input, a connect failure) exits 1 with
// the error on stderr. KAFKAJS_LOG_LEVEL=DEBUG (or INFO, WARN, ERROR) in the
// environment writes kafkajs's log to stderr.
'use strict'

const { Kafka, logLevel, CompressionTypes, ConfigResourceTypes } = require('kafkajs')

const TIMEOUT_MS = 30000

function describeError(e) {
  const one = x => ({ name: x.name, type: x.type || null, code: x.code === undefined ? null : x.code, message: x.message })
  return Object.assign(one(e), {
    errors: Array.isArray(e.errors) ? e.errors.map(one) : [],
    cause: e.cause && e.cause !== e ? describeError(e.cause) : null,
  })
}

const b64 = s => (s === null || s === undefined ? null : Buffer.from(s, 'base64'))
const toB64 = b => (b === null || b === undefined ? null : b.toString('base64'))

function toMessages(messages) {
  return messages.map(m => {
    const msg = { key: b64(m.key), value: b64(m.value), partition: m.partition }
    if (m.headers) {
      msg.headers = {}
      for (const [k, v] of Object.entries(m.headers)) msg.headers[k] = b64(v)
    }
    if (m.timestamp !== undefined) msg.timestamp = String(m.timestamp)
    return msg
  })
}

// Reads `topic` with a fresh consumer until every partition's position
// reaches its end at the start (see "consume" above).
async function consume(kafka, admin, step) {
  const ends = new Map()
  for (const o of await admin.fetchTopicOffsets(step.topic)) ends.set(o.partition, BigInt(o.high))
  const positions = new Map()
  const messages = []
  const consumer = kafka.consumer({
    groupId: step.groupId,
    readUncommitted: !!step.readUncommitted,
    sessionTimeout: 6000,
    heartbeatInterval: 500,
    maxWaitTimeInMs: 100,
  })
  const done = () => [...ends].every(([p, end]) => (positions.get(p) || 0n) >= end)
  let finish
  const finished = new Promise((resolve, reject) => { finish = { resolve, reject } })
  // Every fetched batch, including one only of control records or aborted
  // messages, ends with this event and the offset of its last record.
  consumer.on(consumer.events.END_BATCH_PROCESS, ({ payload }) => {
    if (payload.topic !== step.topic) return
    const next = BigInt(payload.lastOffset) + 1n
    if (next > (positions.get(payload.partition) || 0n)) positions.set(payload.partition, next)
    if (done()) finish.resolve()
  })
  consumer.on(consumer.events.CRASH, e => finish.reject(e.payload.error))
  const timer = setTimeout(() => finish.reject(new Error(
    `consume: not at the end within ${TIMEOUT_MS} ms: positions ${JSON.stringify([...positions].map(String))}, ` +
    `ends ${JSON.stringify([...ends].map(String))}, ${messages.length} messages`)), TIMEOUT_MS)
  try {
    await consumer.connect()
    await consumer.subscribe({ topics: [step.topic], fromBeginning: true })
    await consumer.run({
      autoCommit: false,
      eachMessage: async ({ partition, message }) => {
        messages.push({ partition, offset: message.offset, key: toB64(message.key), value: toB64(message.value) })
      },
    })
    if (!done()) await finished
  } finally {
    clearTimeout(timer)
    await consumer.disconnect()
  }
  return messages
}

async function runStep(kafka, admin, producer, txns, step) {
  const txnOf = name => {
    const t = txns.get(name)
    if (!t) throw new Error(`no producer ${name}`)
    return t
  }
  switch (step.op) {
    case 'txnProducer': {
      const p = kafka.producer({
        allowAutoTopicCreation: false,
        transactionalId: step.transactionalId,
        transactionTimeout: step.transactionTimeout,
        idempotent: true,
        maxInFlightRequests: 1,
        // Bounded, so that a broker answering a retriable error for ever fails
        // the step instead of hanging it.
        retry: { retries: 10, initialRetryTime: 100, maxRetryTime: 1000 },
      })
      txns.set(step.name, { producer: p, transaction: null })
      await p.connect()
      return null
    }
    case 'begin': {
      const t = txnOf(step.producer)
      t.transaction = await t.producer.transaction()
      return null
    }
    case 'txnSend':
      return txnOf(step.producer).transaction.send({
        topic: step.topic, messages: toMessages(step.messages), acks: -1, timeout: TIMEOUT_MS,
      })
    case 'sendOffsets':
      return txnOf(step.producer).transaction.sendOffsets({
        consumerGroupId: step.consumerGroupId, topics: step.topics,
      })
    case 'commit':
      return txnOf(step.producer).transaction.commit()
    case 'abort':
      return txnOf(step.producer).transaction.abort()
    case 'fetchOffsets':
      return admin.fetchOffsets({ groupId: step.groupId, topics: step.topics })
    case 'consume':
      return consume(kafka, admin, step)
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
      return producer.send({
        topic: step.topic,
        messages: toMessages(step.messages),
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
    logLevel: logLevel[process.env.KAFKAJS_LOG_LEVEL || 'NOTHING'],
    logCreator: () => ({ namespace, label, log }) => {
      const { message, ...extra } = log
      process.stderr.write(`${new Date().toISOString()} ${label} [${namespace}] ${message} ${JSON.stringify(extra)}\n`)
    },
    connectionTimeout: 10000,
    requestTimeout: TIMEOUT_MS,
    retry: { retries: 2, initialRetryTime: 100, maxRetryTime: 2000 },
  })
  const admin = kafka.admin()
  const producer = kafka.producer({ allowAutoTopicCreation: false, idempotent: false })
  const txns = new Map()
  await admin.connect()
  await producer.connect()
  const results = []
  try {
    for (const step of steps) {
      try {
        const r = await runStep(kafka, admin, producer, txns, step)
        results.push({ ok: r === undefined ? null : r })
      } catch (e) {
        results.push({ error: describeError(e) })
      }
    }
  } finally {
    // An open transaction stays open on the broker (as after a crash).
    for (const { producer: p } of txns.values()) await p.disconnect()
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
