// A consume-transform-produce application on kafkajs, run as its own
// process by tests/integration/test_kafkajs_transactions.py so that the test
// can SIGKILL it anywhere.
//
//   node transformer.js <bootstrap> <input> <output> <group> <transactionalId>
//
// Reads <input> (read_committed, kafkajs's default) in <group>; for every
// 50 records of a batch, in one transaction, writes "t:" + value to the
// same partition of <output> and commits their next offset with it
// (sendOffsets).
// Prints `committed <n>` (records so far in this run) after each commit;
// runs until killed.
'use strict'

const { Kafka, logLevel } = require('kafkajs')

async function main() {
  const [bootstrap, src, dst, groupId, transactionalId] = process.argv.slice(2)
  if (!transactionalId) throw new Error('usage: node transformer.js <bootstrap> <input> <output> <group> <transactionalId>')
  const kafka = new Kafka({ clientId: transactionalId, brokers: bootstrap.split(','), logLevel: logLevel[process.env.KAFKAJS_LOG_LEVEL || 'ERROR'] })
  const producer = kafka.producer({ transactionalId, idempotent: true, maxInFlightRequests: 1, transactionTimeout: 10000 })
  // Fences the killed instance and aborts what it left open.
  await producer.connect()
  const consumer = kafka.consumer({ groupId, sessionTimeout: 6000, heartbeatInterval: 500, rebalanceTimeout: 10000, maxWaitTimeInMs: 100 })
  await consumer.connect()
  await consumer.subscribe({ topics: [src], fromBeginning: true })
  let done = 0
  await consumer.run({
    autoCommit: false,
    eachBatchAutoResolve: false,
    eachBatch: async ({ batch, resolveOffset, heartbeat }) => {
      // Fifty records a transaction, as the librdkafka transformer takes them.
      for (let i = 0; i < batch.messages.length; i += 50) {
        const msgs = batch.messages.slice(i, i + 50)
        const txn = await producer.transaction()
        try {
          await txn.send({
            topic: dst,
            messages: msgs.map(m => ({ key: m.key, value: Buffer.concat([Buffer.from('t:'), m.value]), partition: batch.partition })),
          })
          const next = (BigInt(msgs[msgs.length - 1].offset) + 1n).toString()
          await txn.sendOffsets({ consumerGroupId: groupId, topics: [{ topic: src, partitions: [{ partition: batch.partition, offset: next }] }] })
          await txn.commit()
        } catch (e) {
          await txn.abort()
          throw e
        }
        resolveOffset(msgs[msgs.length - 1].offset)
        await heartbeat()
        done += msgs.length
        process.stdout.write(`committed ${done}\n`)
      }
    },
  })
}

main().catch(e => {
  process.stderr.write(`transformer.js: ${e && e.stack ? e.stack : e}\n`)
  process.exit(1)
})
