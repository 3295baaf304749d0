import { createTransport } from 'nodemailer';
import { openAccount } from '../lambdas/core/accounts';
import { startLocal } from '../local/start-local';
import { dynamoDbCalls } from '../test/support/dynamodb-calls';

/**
 * DynamoDB calls per authenticated read and per received mail (one address, over SMTP), by command,
 * counted where they leave the service (the same counter the call-budget test asserts with). Throws
 * when a read or a mail exceeds its budget of 4.
 */
export async function measureCallBudget(): Promise<Record<string, Record<string, number>>> {
  const calls = dynamoDbCalls();
  const runtime = await startLocal(
    { host: '127.0.0.1', port: 0, smtpPort: 0, dataDir: undefined, domains: ['tempmail.localhost'], env: 'local', messageTtlSeconds: 900, emailTtlSeconds: 2_592_000, cursorSecret: 'bench-cursor-secret-0123456789abcdef', logLevel: 'silent' },
    { instrumentDynamoDb: (client) => calls.instrument(client) },
  );
  try {
    const { apiKey } = await openAccount({ plan: 'paid', env: 'local' }, runtime.services);
    const headers = { Authorization: `Bearer ${apiKey}` };
    const created = await fetch(`${runtime.apiUrl}/v1/emails`, {
      method: 'POST',
      headers: { ...headers, 'Content-Type': 'application/json', 'Idempotency-Key': 'bench-call-budget-0001' },
      body: '{}',
    });
    const email = ((await created.json()) as { data: { id: string; address: string } }).data;
    const transport = createTransport({ host: '127.0.0.1', port: runtime.smtpPort, secure: false, ignoreTLS: true });
    calls.take();
    await transport.sendMail({ from: 'bench@example.org', to: email.address, subject: 'budget', text: 'hello' });
    transport.close();
    const received = calls.take();
    const receivedTotal = Object.values(received).reduce((sum, count) => sum + count, 0);
    if (receivedTotal > 4) throw new Error(`a received mail made ${receivedTotal} DynamoDB calls, over the budget of 4`);
    const listing = (await (await fetch(`${runtime.apiUrl}/v1/emails/${email.id}/messages`, { headers })).json()) as { data: { id: string }[] };
    const paths = {
      getEmail: `/v1/emails/${email.id}`,
      listMessages: `/v1/emails/${email.id}/messages`,
      getMessage: `/v1/messages/${listing.data[0]!.id}`,
    };
    const budget: Record<string, Record<string, number>> = { receiveMail: received };
    for (const [name, path] of Object.entries(paths)) {
      calls.take();
      const response = await fetch(`${runtime.apiUrl}${path}`, { headers });
      await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`${name} answered ${response.status}`);
      budget[name] = calls.take();
      const total = Object.values(budget[name]!).reduce((sum, count) => sum + count, 0);
      if (total > 4) throw new Error(`${name} made ${total} DynamoDB calls, over the budget of 4`);
    }
    return budget;
  } finally {
    await runtime.close();
  }
}
