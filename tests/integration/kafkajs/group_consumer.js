// One kafkajs consumer-group member for tests/integration/test_groups_clients.py.
//
//   node group_consumer.js <bootstrap[,bootstrap...]> <group> <topic> <clientId> [logLevel]
//
// Subscribes from the beginning and runs eachMessage; every message's offset
// is committed (consumer.commitOffsets, autoCommit off) right after it is
// printed. stdout: one JSON line per event, written as it happens:
//   {"event": "join", "memberId", "leaderId", "isLeader", "generation"?, "assignment": {topic: [p]}}
//   {"event": "message", "topic", "partition", "offset", "value"}
//   {"event": "committed", "topic", "partition", "offset"}
//   {"event": "crash", "error"}        the consumer crashed (consumer.events.CRASH)
//   {"event": "closed"}                after consumer.disconnect()
// "close" on stdin (or its end, or SIGTERM) disconnects (LeaveGroup) and
// exits 0. kafkajs's log (logLevel: NOTHING, ERROR, WARN, INFO, DEBUG;
// default WARN) goes to stderr.
'use strict'

const { Kafka, logLevel } = require('kafkajs')
const readline = require('readline')

function emit(event) {
  process.stdout.write(JSON.stringify(event) + '\n')
}

const stderrLog = () => ({ namespace, level, label, log }) => {
  const { message, ...extra } = log
  process.stderr.write(`${new Date().toISOString()} ${label} [${namespace}] ${message} ${JSON.stringify(extra)}\n`)
}

async function main() {
  const [bootstrap, groupId, topic, clientId, level] = process.argv.slice(2)
  if (!clientId) throw new Error('usage: node group_consumer.js <bootstrap> <group> <topic> <clientId> [logLevel]')
  const kafka = new Kafka({
    clientId,
    brokers: bootstrap.split(','),
    logLevel: logLevel[level || 'WARN'],
    logCreator: stderrLog,
    connectionTimeout: 10000,
    requestTimeout: 30000,
  })
  const consumer = kafka.consumer({
    groupId,
    sessionTimeout: 6000,
    heartbeatInterval: 500,
    rebalanceTimeout: 20000,
    maxWaitTimeInMs: 100,
    retry: { retries: 5, initialRetryTime: 100, maxRetryTime: 2000 },
  })
  consumer.on(consumer.events.GROUP_JOIN, e => {
    const p = e.payload
    emit({ event: 'join', memberId: p.memberId, leaderId: p.leaderId, isLeader: p.isLeader,
           assignment: p.memberAssignment })
  })
  consumer.on(consumer.events.CRASH, e => {
    emit({ event: 'crash', error: String(e.payload.error && e.payload.error.stack || e.payload.error) })
  })

  let closing = null
  const close = () => {
    if (!closing) {
      closing = consumer.disconnect().then(() => {
        emit({ event: 'closed' })
        process.exit(0)
      }, e => {
        process.stderr.write(`disconnect failed: ${e && e.stack ? e.stack : e}\n`)
        process.exit(1)
      })
    }
    return closing
  }
  process.on('SIGTERM', close)
  const rl = readline.createInterface({ input: process.stdin })
  rl.on('line', line => { if (line.trim() === 'close') close() })
  rl.on('close', close)

  await consumer.connect()
  await consumer.subscribe({ topics: [topic], fromBeginning: true })
  await consumer.run({
    autoCommit: false,
    eachMessage: async ({ topic: t, partition, message }) => {
      emit({ event: 'message', topic: t, partition, offset: Number(message.offset),
             value: message.value === null ? null : message.value.toString() })
      const next = (BigInt(message.offset) + 1n).toString()
      await consumer.commitOffsets([{ topic: t, partition, offset: next }])
      emit({ event: 'committed', topic: t, partition, offset: Number(next) })
    },
  })
}

main().catch(e => {
  process.stderr.write(`group_consumer.js: ${e && e.stack ? e.stack : e}\n`)
  process.exit(1)
})
