import type { Messages } from '@svc/web-ui/i18n';

const en = {
  title: 'Reports',
  intro: 'Cases created in the chosen days, counted by their current status.',
  from: 'From',
  to: 'To',
  show: 'Show',
  rangeInvalid: 'Choose a start date on or before the end date.',
  downloadCsv: 'Download CSV',
  downloadHint: 'Every case of the range, newest first (at most 5,000).',
  totalCases: 'Cases',
  automationRate: 'Automation rate',
  automationHint: 'Share of approved or rejected cases decided by the automated checks alone, without a manual review.',
  byStatusTitle: 'Cases by status',
  byStatusChart: 'Bar chart of cases by status; the table below gives the same numbers.',
  perDayTitle: 'Cases per day',
  perDayChart: 'Bar chart of cases created per day; the table below gives the same numbers.',
  perDayTruncated: 'Counted from the newest {shown} of {total} cases: narrow the range to count them all.',
  showTable: 'Show the numbers',
  columnStatus: 'Status',
  columnCases: 'Cases',
  columnDay: 'Day',
} as const;

export type ReportMessageKey = keyof typeof en;

export const reportMessages: Messages<ReportMessageKey> = {
  en,
  ar: {
    title: 'التقارير',
    intro: 'الطلبات التي أُنشئت في الأيام المختارة، معدودةً حسب حالتها الحالية.',
    from: 'من',
    to: 'إلى',
    show: 'عرض',
    rangeInvalid: 'اختر تاريخ بداية لا يتجاوز تاريخ النهاية.',
    downloadCsv: 'تنزيل ملف CSV',
    downloadHint: 'كل طلبات الفترة، الأحدث أولًا (5000 على الأكثر).',
    totalCases: 'الطلبات',
    automationRate: 'نسبة الأتمتة',
    automationHint: 'نسبة الطلبات المقبولة أو المرفوضة التي حسمتها الفحوص الآلية وحدها دون مراجعة يدوية.',
    byStatusTitle: 'الطلبات حسب الحالة',
    byStatusChart: 'مخطط أعمدة للطلبات حسب الحالة؛ يعرض الجدول أدناه الأرقام نفسها.',
    perDayTitle: 'الطلبات يوميًا',
    perDayChart: 'مخطط أعمدة للطلبات المنشأة في كل يوم؛ يعرض الجدول أدناه الأرقام نفسها.',
    perDayTruncated: 'محسوبة من أحدث {shown} من أصل {total} طلبًا: ضيّق الفترة لعدّها كلها.',
    showTable: 'عرض الأرقام',
    columnStatus: 'الحالة',
    columnCases: 'الطلبات',
    columnDay: 'اليوم',
  },
};
