import { Annotations, CfnOutput, Duration } from 'aws-cdk-lib';
import {
  Alarm,
  ComparisonOperator,
  MathExpression,
  Metric,
  TreatMissingData,
  type IAlarmAction,
  type IMetric,
} from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import type { ITableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { FilterPattern, MetricFilter, type IFilterPattern, type ILogGroup } from 'aws-cdk-lib/aws-logs';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { tableDefinitions, tableKeys, type TableDefinition, type TableKey } from '../lambdas/adapters/dynamodb/table-definitions';
import { metricNamespace, stageDimension } from '../lambdas/mail/metrics';

export interface MonitoringProps {
  restApi: RestApi;
  /** The API stage's access log: console requests and their 5xx are counted from it. */
  accessLogs: ILogGroup;
  /** The stage: it tells this stack's counted metrics from another stage's in the account. */
  stage: string;
  authorizer: IFunction;
  /** The route functions, by route id (one per row of the route table). */
  routes: ReadonlyMap<string, IFunction>;
  recipientFilter: IFunction;
  parser: IFunction;
  sweeper: IFunction;
  deadLetterQueue: IQueue;
  /** Every table of the service, by name. */
  tables: Record<TableKey, ITableV2>;
  /** Where alarms are mailed, when the deployer gives an address. */
  alarmEmail?: string;
  /** Minutes without any mail reaching this stage's receipt rule before an alarm (default a day; 0: none). */
  mailSilenceMinutes?: number;
}

/** The id of the synth warning given when nobody is subscribed to the alarms. */
export const unsubscribedAlarmsWarning = 'tempmail:alarms-unsubscribed';

const fiveMinutes = Duration.minutes(5);
/** A CloudWatch alarm's metric math reads at most 10 metrics. */
const metricsPerAlarm = 10;
/** The DynamoDB operations the service sends, for the per-operation system error metric. */
const tableOperations = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan'];

/**
 * 5xx answers needed in five minutes before a rate counts: at low traffic one failed request in
 * ten would otherwise be a 10% rate and wake someone for nothing.
 */
export const minimumServerErrors = 5;
/** A day without mail: long enough that a quiet night of a test-inbox service is not an incident. */
export const defaultMailSilenceMinutes = 1440;
/** The share of the account's concurrency limit the stacks of the account may claim before the alarm. */
export const claimedConcurrencyPercent = 80;
/** How long past its expiry the oldest unswept message may wait before the alarm (for half as many minutes in a row). */
export const sweepBacklogMinutes = 10;

/**
 * Alarms on what the operator must know: the API's 5xx rate and the console's own, errors of
 * every function, Lambda throttling and the account's claimed concurrency, DynamoDB throttling of
 * tables and indexes and system errors, mail waiting in the dead-letter queue, expired mail the
 * sweeper has not caught up with, and mail kept in part because it passed the MIME limits. Every
 * alarm notifies the stack's SNS topic; without an alarm address nobody is subscribed to it, and
 * both a stack output and a warning at synth say so.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    this.alarm(
      'ServerErrorRate',
      `More than 1% of API requests answered 5xx in 5 minutes (at least ${minimumServerErrors} of them)`,
      serverErrorRate(props.restApi.metricCount({ period: fiveMinutes }), props.restApi.metricServerError({ period: fiveMinutes })),
      1,
    );
    const consoleRequests = this.countedRequests('ConsoleRequests', props, FilterPattern.stringValue('$.resource', '=', '/console/*'));
    const consoleErrors = this.countedRequests(
      'ConsoleServerErrors',
      props,
      FilterPattern.all(FilterPattern.stringValue('$.resource', '=', '/console/*'), FilterPattern.stringValue('$.status', '=', '5*')),
    );
    this.alarm(
      'ConsoleServerErrorRate',
      `More than 1% of console API requests answered 5xx in 5 minutes (at least ${minimumServerErrors}); the /v1 traffic cannot hide them`,
      serverErrorRate(consoleRequests, consoleErrors),
      1,
    );

    this.alarm('AuthorizerErrors', 'The authorizer failed (every failure is a 500 to a client)', props.authorizer.metricErrors({ period: fiveMinutes }));
    for (const [routeId, fn] of props.routes) {
      this.alarm(`${routeId}Errors`, `The ${routeId} route's function failed: the client got a 5xx`, fn.metricErrors({ period: fiveMinutes }));
    }
    this.alarm(
      'RecipientFilterErrors',
      'The recipient filter failed: SES cannot deliver the mail it was deciding on',
      props.recipientFilter.metricErrors({ period: fiveMinutes }),
    );
    this.alarm(
      'ParserErrors',
      'The mail parser failed; Lambda retries it, then the dead-letter queue keeps the event',
      props.parser.metricErrors({ period: fiveMinutes }),
    );
    const silence = mailSilenceWindow(props.mailSilenceMinutes ?? defaultMailSilenceMinutes);
    if (silence) {
      // Every mail for the stage's domains runs the filter first: no invocation means no mail reached the rule.
      this.alarms.push(
        new Alarm(this, 'NoMailReceived', {
          alarmDescription: `No mail reached this stage's receipt rule for ${silence.minutes} minutes: is the rule set still active, the MX record in place, the rule still in the set?`,
          metric: props.recipientFilter.metricInvocations({ period: silence.period, statistic: 'Sum' }),
          threshold: 1,
          evaluationPeriods: silence.periods,
          datapointsToAlarm: silence.periods,
          comparisonOperator: ComparisonOperator.LESS_THAN_THRESHOLD,
          treatMissingData: TreatMissingData.BREACHING,
        }),
      );
    }
    this.alarm('SweeperErrors', 'The sweeper failed: expired mail may outlive its 15 minutes', props.sweeper.metricErrors({ period: fiveMinutes }));
    this.alarms.push(
      new Alarm(this, 'SweepBacklog', {
        alarmDescription: `Expired mail has waited more than ${sweepBacklogMinutes} minutes for the sweeper, for ${sweepBacklogMinutes / 2} minutes in a row (or the sweeper stopped reporting): private content outlives its 15 minutes. See the sweeper's errors, its logged figures and docs/limits.md`,
        metric: new Metric({
          namespace: metricNamespace,
          metricName: 'OldestUnsweptSeconds',
          dimensionsMap: { [stageDimension]: props.stage },
          statistic: 'Maximum',
          period: Duration.minutes(1),
        }),
        threshold: sweepBacklogMinutes * 60,
        evaluationPeriods: sweepBacklogMinutes / 2,
        datapointsToAlarm: sweepBacklogMinutes / 2,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        // The sweeper reports after every run, failed ones included: silence means it does not run.
        treatMissingData: TreatMissingData.BREACHING,
      }),
    );
    this.alarm(
      'DeadLetters',
      'Received mail the parser could not ingest waits in the dead-letter queue: redrive it within minutes',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
    );
    this.alarm(
      'MailTruncated',
      'A received mail passed the MIME limits and was kept in part (the parser logs it as "mail truncated")',
      new Metric({ namespace: metricNamespace, metricName: 'MailTruncated', dimensionsMap: { [stageDimension]: props.stage }, statistic: 'Sum', period: fiveMinutes }),
    );

    const functions = [props.authorizer, ...props.routes.values(), props.recipientFilter, props.parser, props.sweeper];
    for (let start = 0, group = 1; start < functions.length; start += metricsPerAlarm, group += 1) {
      const slice = functions.slice(start, start + metricsPerAlarm);
      this.alarm(
        `LambdaThrottles${group}`,
        'Lambda throttled functions of the service (API requests answered 429/500, or mail delayed)',
        sum(Object.fromEntries(slice.map((fn, index) => [`t${index}`, fn.metricThrottles({ period: fiveMinutes })]))),
      );
    }
    this.alarm(
      'ClaimedConcurrency',
      `The account's functions claim more than ${claimedConcurrencyPercent}% of its Lambda concurrency limit in this Region: request an increase before they are throttled`,
      claimedConcurrencyShare(),
      claimedConcurrencyPercent,
    );
    for (const key of tableKeys) {
      const table = props.tables[key];
      const metrics: Record<string, IMetric> = {
        reads: tableMetric(table, 'ReadThrottleEvents'),
        writes: tableMetric(table, 'WriteThrottleEvents'),
      };
      tableOperations.forEach((operation, index) => {
        metrics[`e${index}`] = tableMetric(table, 'SystemErrors', { Operation: operation });
      });
      this.alarm(`Table${key}Faults`, `DynamoDB throttled or failed requests to the ${key} table`, sum(metrics));
      const definition: TableDefinition = tableDefinitions[key];
      const indexes = definition.indexes ?? [];
      if (indexes.length === 0) continue;
      const throttles: Record<string, IMetric> = {};
      indexes.forEach((index, n) => {
        const dimensions = { GlobalSecondaryIndexName: index.name };
        throttles[`r${n}`] = tableMetric(table, 'ReadThrottleEvents', dimensions);
        throttles[`w${n}`] = tableMetric(table, 'WriteThrottleEvents', dimensions);
      });
      this.alarm(
        `Table${key}IndexThrottles`,
        `DynamoDB throttled an index of the ${key} table (${indexes.map((index) => index.name).join(', ')}); a throttled index also throttles the table's writes`,
        sum(throttles),
      );
    }

    // Every alarm acts on the stack's own topic, subscribed or not: a subscription added later
    // (mail, chat, a pager) is told of every alarm without a redeployment.
    const topic = new Topic(this, 'AlarmTopic', { enforceSSL: true, displayName: `tempmail ${props.stage} alarms` });
    const action: IAlarmAction = new SnsAction(topic);
    for (const alarm of this.alarms) alarm.addAlarmAction(action);
    new CfnOutput(this, 'AlarmTopicArn', { value: topic.topicArn, description: 'Every alarm of the stage notifies this SNS topic' });
    if (props.alarmEmail) {
      topic.addSubscription(new EmailSubscription(props.alarmEmail));
    } else {
      new CfnOutput(this, 'AlarmNotification', {
        value: 'NOBODY is notified: the alarms exist but no alarmEmail was given',
        description: 'Deploy with -c alarmEmail=ops@example.com, or subscribe to AlarmTopicArn, to receive alarms',
      });
      Annotations.of(this).addWarningV2(
        unsubscribedAlarmsWarning,
        'NOBODY is notified of this stage\'s alarms: no alarmEmail was given. Deploy with -c alarmEmail=ops@example.com, or subscribe to the AlarmTopicArn output.',
      );
    }
  }

  /** A count of the stage's access log lines that match, as a metric of this stage. */
  private countedRequests(metricName: string, props: MonitoringProps, filterPattern: IFilterPattern): IMetric {
    const filter = new MetricFilter(this, metricName, {
      logGroup: props.accessLogs,
      metricNamespace,
      metricName,
      filterPattern,
      metricValue: '1',
      dimensions: { [stageDimension]: '$.stage' },
    });
    return filter.metric({ statistic: 'Sum', period: fiveMinutes, dimensionsMap: { [stageDimension]: props.stage } });
  }

  private alarm(id: string, alarmDescription: string, metric: IMetric, threshold = 0): void {
    this.alarms.push(
      new Alarm(this, id, {
        alarmDescription,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      }),
    );
  }
}

/**
 * The alarm window of a silence of `minutes` as CloudWatch takes it: one period up to an hour,
 * hourly periods beyond (at most a day); undefined for 0, no alarm.
 */
export function mailSilenceWindow(minutes: number): { minutes: number; period: Duration; periods: number } | undefined {
  if (!Number.isInteger(minutes) || minutes < 0 || minutes > 1440) {
    throw new Error(`mailSilenceMinutes must be a whole number of minutes from 0 (no alarm) to 1440, not ${minutes}.`);
  }
  if (minutes === 0) return undefined;
  const periodMinutes = Math.min(minutes, 60);
  return { minutes, period: Duration.minutes(periodMinutes), periods: Math.ceil(minutes / periodMinutes) };
}

/** The 5xx share in percent, counted only once there are enough 5xx for a rate to mean something. */
function serverErrorRate(requests: IMetric, errors: IMetric): MathExpression {
  return new MathExpression({
    expression: `IF(errors >= ${minimumServerErrors}, 100 * errors / requests, 0)`,
    usingMetrics: { requests, errors },
    period: fiveMinutes,
  });
}

/**
 * The concurrency the account's functions claim (unreserved in use plus everything reserved), as
 * a share of the account's limit, which Service Quotas publishes for the usage metric of Lambda's
 * concurrent executions.
 */
function claimedConcurrencyShare(): MathExpression {
  return new MathExpression({
    expression: '100 * claimed / SERVICE_QUOTA(usage)',
    usingMetrics: {
      claimed: new Metric({ namespace: 'AWS/Lambda', metricName: 'ClaimedAccountConcurrency', statistic: 'Maximum', period: fiveMinutes }),
      usage: new Metric({
        namespace: 'AWS/Usage',
        metricName: 'ResourceCount',
        dimensionsMap: { Service: 'Lambda', Type: 'Resource', Resource: 'ConcurrentExecutions', Class: 'None' },
        statistic: 'Maximum',
        period: fiveMinutes,
      }),
    },
    period: fiveMinutes,
  });
}

function sum(usingMetrics: Record<string, IMetric>): MathExpression {
  return new MathExpression({ expression: `SUM([${Object.keys(usingMetrics).join(',')}])`, usingMetrics, period: fiveMinutes });
}

function tableMetric(table: ITableV2, metricName: string, dimensions: Record<string, string> = {}): Metric {
  return new Metric({
    namespace: 'AWS/DynamoDB',
    metricName,
    dimensionsMap: { TableName: table.tableName, ...dimensions },
    statistic: 'Sum',
    period: fiveMinutes,
  });
}
