import { CfnOutput, Duration } from 'aws-cdk-lib';
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
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { metricNamespace } from '../lambdas/inbound/metrics';

export interface MonitoringProps {
  restApi: RestApi;
  authorizer: IFunction;
  /** The route functions, one per row of the route table. */
  routes: IFunction[];
  recipientFilter: IFunction;
  parser: IFunction;
  sweeper: IFunction;
  deadLetterQueue: IQueue;
  /** Every table of the service, by name. */
  tables: Record<string, ITableV2>;
  /** Where alarms are mailed, when the deployer gives an address. */
  alarmEmail?: string;
}

const fiveMinutes = Duration.minutes(5);
/** A CloudWatch alarm's metric math reads at most 10 metrics. */
const metricsPerAlarm = 10;
/** The DynamoDB operations the service sends, for the per-operation system error metric. */
const tableOperations = ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'Scan'];

/**
 * Alarms on what the operator must know: the API's 5xx rate, failures of every function on the
 * request and mail paths, Lambda and DynamoDB throttling, DynamoDB system errors and mail waiting
 * in the dead-letter queue, and mail kept in part because it passed the MIME limits. Without an alarm address, a stack output says that nobody is told.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[] = [];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const requests = props.restApi.metricCount({ period: fiveMinutes });
    const serverErrors = props.restApi.metricServerError({ period: fiveMinutes });
    this.alarm(
      'ServerErrorRate',
      'More than 1% of API requests answered 5xx in 5 minutes',
      new MathExpression({
        expression: 'IF(requests > 0, 100 * errors / requests, 0)',
        usingMetrics: { requests, errors: serverErrors },
        period: fiveMinutes,
      }),
      1,
    );
    this.alarm('AuthorizerErrors', 'The authorizer failed (every failure is a 500 to a client)', props.authorizer.metricErrors({ period: fiveMinutes }));
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
    this.alarm('SweeperErrors', 'The sweeper failed: expired mail may outlive its 15 minutes', props.sweeper.metricErrors({ period: fiveMinutes }));
    this.alarm(
      'DeadLetters',
      'Received mail the parser could not ingest waits in the dead-letter queue: redrive it within minutes',
      props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
    );
    this.alarm(
      'MailTruncated',
      'A received mail passed the MIME limits and was kept in part (the parser logs it as "mail truncated")',
      new Metric({ namespace: metricNamespace, metricName: 'MailTruncated', statistic: 'Sum', period: fiveMinutes }),
    );

    const functions = [props.authorizer, ...props.routes, props.recipientFilter, props.parser, props.sweeper];
    for (let start = 0, group = 1; start < functions.length; start += metricsPerAlarm, group += 1) {
      const slice = functions.slice(start, start + metricsPerAlarm);
      this.alarm(
        `LambdaThrottles${group}`,
        'Lambda throttled functions of the service (API requests answered 429/500, or mail delayed)',
        sum(Object.fromEntries(slice.map((fn, index) => [`t${index}`, fn.metricThrottles({ period: fiveMinutes })]))),
      );
    }
    for (const [name, table] of Object.entries(props.tables)) {
      const metrics: Record<string, IMetric> = {
        reads: tableMetric(table, 'ReadThrottleEvents'),
        writes: tableMetric(table, 'WriteThrottleEvents'),
      };
      tableOperations.forEach((operation, index) => {
        metrics[`e${index}`] = tableMetric(table, 'SystemErrors', { Operation: operation });
      });
      this.alarm(`Table${name}Faults`, `DynamoDB throttled or failed requests to the ${name} table`, sum(metrics));
    }

    if (props.alarmEmail) {
      const topic = new Topic(this, 'AlarmTopic', { enforceSSL: true, displayName: 'tempmail alarms' });
      topic.addSubscription(new EmailSubscription(props.alarmEmail));
      const action: IAlarmAction = new SnsAction(topic);
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    } else {
      new CfnOutput(this, 'AlarmNotification', {
        value: 'NOBODY is notified: the alarms exist but no alarmEmail was given',
        description: 'Deploy with -c alarmEmail=ops@example.com to receive alarms',
      });
    }
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
