// The settings the app reads from its environment.
export const config = {
  apiKey: process.env.OPENWEATHER_API_KEY,
  sentryDsn: process.env.SENTRY_DSN,
  units: process.env.UNITS ?? 'metric',
};
