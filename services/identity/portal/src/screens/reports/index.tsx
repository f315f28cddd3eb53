import './reports.css';
import { ReportsScreen } from './reports-screen.js';

/** `/portal/reports?from=YYYY-MM-DD&to=YYYY-MM-DD` (default the last 30 days). */
export function ReportsArea(_props: { subpath: string }) {
  return <ReportsScreen />;
}
