/** The CloudWatch namespace of the service's own metrics. */
export const metricNamespace = 'Tempmail';

/** The dimension every metric of the namespace carries: the stage (`TEMPMAIL_ENV`) that counted it. */
export const stageDimension = 'Stage';

/**
 * Fields that make a JSON log line count one event of a CloudWatch metric as well (the embedded
 * metric format, read from the Lambda's log): no API call, no extra dependency. Locally they are
 * just fields of the log line. Every metric of the namespace is one stage's (dimension `Stage`),
 * so that the stages of one account keep their counts and alarms apart.
 */
export function countMetric(name: string, at: Date, stage: string): Record<string, unknown> {
  return embeddedMetric(name, 1, 'Count', at, stage);
}

/** Fields that make a JSON log line report a measured value (in seconds) as a CloudWatch metric of one stage. */
export function secondsMetric(name: string, seconds: number, at: Date, stage: string): Record<string, unknown> {
  return embeddedMetric(name, seconds, 'Seconds', at, stage);
}

function embeddedMetric(name: string, value: number, unit: string, at: Date, stage: string): Record<string, unknown> {
  const dimensions = { [stageDimension]: stage };
  return {
    _aws: {
      Timestamp: at.getTime(),
      CloudWatchMetrics: [{ Namespace: metricNamespace, Dimensions: [Object.keys(dimensions)], Metrics: [{ Name: name, Unit: unit }] }],
    },
    ...dimensions,
    [name]: value,
  };
}
