// Schemas of the Metrics group: the Prometheus text exposition, declared as such (not JSON).
import Type from 'typebox';

export const MetricsResponse = {
  description: 'Prometheus text exposition (text/plain; version=0.0.4)',
  content: { 'text/plain': { schema: Type.String() } },
};
