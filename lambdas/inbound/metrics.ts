/** The CloudWatch namespace of the service's own metrics. */
export const metricNamespace = 'Tempmail';

/**
 * Fields that make a JSON log line count one event of a CloudWatch metric as well (the embedded
 * metric format, read from the Lambda's log): no API call, no extra dependency. Locally they are
 * just fields of the log line.
 */
export function countMetric(name: string, at: Date): Record<string, unknown> {
  return {
    _aws: {
      Timestamp: at.getTime(),
      CloudWatchMetrics: [{ Namespace: metricNamespace, Dimensions: [[]], Metrics: [{ Name: name, Unit: 'Count' }] }],
    },
    [name]: 1,
  };
}
