import { Duration } from 'aws-cdk-lib';
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
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { Topic } from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import type { IQueue } from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { metricNamespace } from '../lambdas/inbound/metrics';

export interface MonitoringProps {
  restApi: RestApi;
  authorizer: IFunction;
  parser: IFunction;
  deadLetterQueue: IQueue;
  /** Where alarms are mailed, when the deployer gives an address. */
  alarmEmail?: string;
}

/**
 * Alarms on what the operator must know: 5xx rate, authorizer errors, parser failures, dead
 * letters, and mail kept in part because it passed the MIME limits.
 */
export class Monitoring extends Construct {
  readonly alarms: Alarm[];

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const fiveMinutes = Duration.minutes(5);
    const requests = props.restApi.metricCount({ period: fiveMinutes });
    const serverErrors = props.restApi.metricServerError({ period: fiveMinutes });
    const alarm = (id: string, alarmDescription: string, metric: IMetric, threshold: number) =>
      new Alarm(this, id, {
        alarmDescription,
        metric,
        threshold,
        evaluationPeriods: 1,
        comparisonOperator: ComparisonOperator.GREATER_THAN_THRESHOLD,
        treatMissingData: TreatMissingData.NOT_BREACHING,
      });
    this.alarms = [
      alarm(
        'ServerErrorRate',
        'More than 1% of API requests answered 5xx in 5 minutes',
        new MathExpression({
          expression: 'IF(requests > 0, 100 * errors / requests, 0)',
          usingMetrics: { requests, errors: serverErrors },
          period: fiveMinutes,
        }),
        1,
      ),
      alarm('AuthorizerErrors', 'The authorizer failed (every failure is a 500 to a client)', props.authorizer.metricErrors({ period: fiveMinutes }), 0),
      alarm(
        'ParserErrors',
        'The mail parser failed; Lambda retries it, then the dead-letter queue keeps the event',
        props.parser.metricErrors({ period: fiveMinutes }),
        0,
      ),
      alarm(
        'DeadLetters',
        'Received mail the parser could not ingest waits in the dead-letter queue',
        props.deadLetterQueue.metricApproximateNumberOfMessagesVisible({ period: fiveMinutes }),
        0,
      ),
      alarm(
        'MailTruncated',
        'A received mail passed the MIME limits and was kept in part (the parser logs it as "mail truncated")',
        new Metric({ namespace: metricNamespace, metricName: 'MailTruncated', statistic: 'Sum', period: fiveMinutes }),
        0,
      ),
    ];
    if (props.alarmEmail) {
      const topic = new Topic(this, 'AlarmTopic', { enforceSSL: true, displayName: 'tempmail alarms' });
      topic.addSubscription(new EmailSubscription(props.alarmEmail));
      const action: IAlarmAction = new SnsAction(topic);
      for (const alarm of this.alarms) alarm.addAlarmAction(action);
    }
  }
}
