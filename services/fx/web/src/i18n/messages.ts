/** The six languages of the API; Arabic is the default, Arabic and Sorani are written right to left. */
export const LANGUAGES = ['ar', 'en', 'de', 'tr', 'ku', 'kmr'] as const;
export type Language = (typeof LANGUAGES)[number];

export const RIGHT_TO_LEFT: ReadonlySet<Language> = new Set(['ar', 'ku']);

/** Each language's name in itself, for the language menu. */
export const LANGUAGE_NAMES: Record<Language, string> = {
  ar: 'العربية',
  en: 'English',
  de: 'Deutsch',
  tr: 'Türkçe',
  ku: 'کوردی (سۆرانی)',
  kmr: 'Kurdî (Kurmancî)',
};

export interface Messages {
  title: string;
  lead: string;
  skipToContent: string;
  language: string;
  latestRates: string;
  currency: string;
  official: string;
  market: string;
  buy: string;
  sell: string;
  mid: string;
  changeAgainstPreviousDay: string;
  up: string;
  down: string;
  unchanged: string;
  effectiveManual: string;
  dataTime: string;
  stale: string;
  demo: string;
  loadFailed: string;
  noData: string;
  crossRates: string;
  oneUsd: string;
  crypto: string;
  price: string;
  change24h: string;
  gold: string;
  karat: string;
  perOunce: string;
  perGram: string;
  gramInSyp: string;
  history: string;
  source: string;
  range: string;
  days: string;
  chartType: string;
  line: string;
  ohlc: string;
  date: string;
  open: string;
  high: string;
  low: string;
  close: string;
  dataTable: string;
  redenominationNote: string;
  converter: string;
  amount: string;
  from: string;
  to: string;
  swap: string;
  result: string;
  atEffectiveRate: string;
  invalidAmount: string;
  api: string;
  apiDocs: string;
}

const en: Messages = {
  title: 'Syrian pound exchange rates',
  lead: 'Official (Central Bank of Syria) and market rates, crypto and gold. Free, no account.',
  skipToContent: 'Skip to the rates',
  language: 'Language',
  latestRates: 'Latest rates in Syrian pounds',
  currency: 'Currency',
  official: 'Official (CBS)',
  market: 'Market',
  buy: 'Buy',
  sell: 'Sell',
  mid: 'Mid',
  changeAgainstPreviousDay: 'Change against the previous day',
  up: 'up',
  down: 'down',
  unchanged: 'unchanged',
  effectiveManual: 'Effective rate (manual override)',
  dataTime: 'Data as of',
  stale: 'Some data is out of date: {sources} has not updated recently.',
  demo: 'Demo data: these rates are generated for trying the service. Do not use them for decisions.',
  loadFailed: 'Could not reach the service; showing the last data received. Retrying every minute.',
  noData: 'No data yet',
  crossRates: 'US dollar cross rates',
  oneUsd: '1 USD =',
  crypto: 'Cryptocurrencies (USD)',
  price: 'Price',
  change24h: '24 h change',
  gold: 'Gold',
  karat: '{karat} karat',
  perOunce: 'Ounce (USD)',
  perGram: 'Gram (USD)',
  gramInSyp: 'Gram (SYP)',
  history: 'History',
  source: 'Source',
  range: 'Period',
  days: '{days} days',
  chartType: 'Chart type',
  line: 'Line',
  ohlc: 'OHLC',
  date: 'Date',
  open: 'Open',
  high: 'High',
  low: 'Low',
  close: 'Close',
  dataTable: 'Chart data as a table',
  redenominationNote: 'Values before {date} are converted to the new Syrian pound introduced by the redenomination on that date.',
  converter: 'Converter',
  amount: 'Amount',
  from: 'From',
  to: 'To',
  swap: 'Swap currencies',
  result: 'Result',
  atEffectiveRate: 'At the effective rate 1 {currency} = {rate} SYP',
  invalidAmount: 'Enter a number, for example 100 or 2.5',
  api: 'JSON API',
  apiDocs: 'API documentation',
};

const ar: Messages = {
  title: 'سعر صرف الليرة السورية',
  lead: 'الأسعار الرسمية (مصرف سورية المركزي) وأسعار السوق، والعملات المشفرة والذهب. مجاناً ودون حساب.',
  skipToContent: 'انتقل إلى الأسعار',
  language: 'اللغة',
  latestRates: 'أحدث الأسعار بالليرة السورية',
  currency: 'العملة',
  official: 'الرسمي (المركزي)',
  market: 'السوق',
  buy: 'شراء',
  sell: 'مبيع',
  mid: 'وسطي',
  changeAgainstPreviousDay: 'التغير عن اليوم السابق',
  up: 'ارتفاع',
  down: 'انخفاض',
  unchanged: 'دون تغيير',
  effectiveManual: 'السعر المعتمد (تعديل يدوي)',
  dataTime: 'البيانات بتاريخ',
  stale: 'بعض البيانات قديمة: لم يُحدَّث المصدر {sources} مؤخراً.',
  demo: 'بيانات تجريبية: هذه الأسعار مولَّدة لتجربة الخدمة. لا تعتمد عليها في قراراتك.',
  loadFailed: 'تعذّر الوصول إلى الخدمة؛ نعرض آخر بيانات وصلت. نعيد المحاولة كل دقيقة.',
  noData: 'لا توجد بيانات بعد',
  crossRates: 'أسعار العملات مقابل الدولار الأمريكي',
  oneUsd: '1 دولار =',
  crypto: 'العملات المشفرة (بالدولار)',
  price: 'السعر',
  change24h: 'التغير خلال 24 ساعة',
  gold: 'الذهب',
  karat: 'عيار {karat}',
  perOunce: 'الأونصة (دولار)',
  perGram: 'الغرام (دولار)',
  gramInSyp: 'الغرام (ليرة)',
  history: 'السعر التاريخي',
  source: 'المصدر',
  range: 'الفترة',
  days: '{days} يوماً',
  chartType: 'نوع الرسم',
  line: 'خطي',
  ohlc: 'شموع (افتتاح، أعلى، أدنى، إغلاق)',
  date: 'التاريخ',
  open: 'افتتاح',
  high: 'أعلى',
  low: 'أدنى',
  close: 'إغلاق',
  dataTable: 'بيانات الرسم في جدول',
  redenominationNote: 'القيم قبل {date} محوَّلة إلى الليرة السورية الجديدة التي صدرت بإعادة تقييم العملة في ذلك التاريخ.',
  converter: 'محوّل العملات',
  amount: 'المبلغ',
  from: 'من',
  to: 'إلى',
  swap: 'بدّل العملتين',
  result: 'النتيجة',
  atEffectiveRate: 'بالسعر المعتمد 1 {currency} = {rate} ل.س',
  invalidAmount: 'أدخل رقماً، مثلاً 100 أو 2.5',
  api: 'واجهة JSON',
  apiDocs: 'توثيق الواجهة',
};

const de: Messages = {
  title: 'Wechselkurse des Syrischen Pfunds',
  lead: 'Offizielle Kurse (Zentralbank Syriens) und Marktkurse, Kryptowährungen und Gold. Kostenlos, ohne Konto.',
  skipToContent: 'Zu den Kursen springen',
  language: 'Sprache',
  latestRates: 'Aktuelle Kurse in Syrischen Pfund',
  currency: 'Währung',
  official: 'Offiziell (CBS)',
  market: 'Markt',
  buy: 'Ankauf',
  sell: 'Verkauf',
  mid: 'Mittel',
  changeAgainstPreviousDay: 'Änderung zum Vortag',
  up: 'gestiegen',
  down: 'gefallen',
  unchanged: 'unverändert',
  effectiveManual: 'Geltender Kurs (manuell gesetzt)',
  dataTime: 'Datenstand',
  stale: 'Einige Daten sind veraltet: {sources} wurde länger nicht aktualisiert.',
  demo: 'Demodaten: Diese Kurse sind zum Ausprobieren erzeugt. Nicht für Entscheidungen verwenden.',
  loadFailed: 'Der Dienst ist nicht erreichbar; angezeigt werden die zuletzt empfangenen Daten. Neuer Versuch jede Minute.',
  noData: 'Noch keine Daten',
  crossRates: 'Kreuzkurse zum US-Dollar',
  oneUsd: '1 USD =',
  crypto: 'Kryptowährungen (USD)',
  price: 'Preis',
  change24h: 'Änderung 24 h',
  gold: 'Gold',
  karat: '{karat} Karat',
  perOunce: 'Unze (USD)',
  perGram: 'Gramm (USD)',
  gramInSyp: 'Gramm (SYP)',
  history: 'Verlauf',
  source: 'Quelle',
  range: 'Zeitraum',
  days: '{days} Tage',
  chartType: 'Diagrammart',
  line: 'Linie',
  ohlc: 'OHLC (Kerzen)',
  date: 'Datum',
  open: 'Eröffnung',
  high: 'Hoch',
  low: 'Tief',
  close: 'Schluss',
  dataTable: 'Diagrammdaten als Tabelle',
  redenominationNote: 'Werte vor dem {date} sind in das neue Syrische Pfund umgerechnet, das an diesem Tag mit der Währungsumstellung eingeführt wurde.',
  converter: 'Umrechner',
  amount: 'Betrag',
  from: 'Von',
  to: 'Nach',
  swap: 'Währungen tauschen',
  result: 'Ergebnis',
  atEffectiveRate: 'Zum geltenden Kurs 1 {currency} = {rate} SYP',
  invalidAmount: 'Bitte eine Zahl eingeben, z. B. 100 oder 2,5',
  api: 'JSON-API',
  apiDocs: 'API-Dokumentation',
};

const tr: Messages = {
  title: 'Suriye lirası döviz kurları',
  lead: 'Resmî (Suriye Merkez Bankası) ve piyasa kurları, kripto paralar ve altın. Ücretsiz, hesap gerekmez.',
  skipToContent: 'Kurlara geç',
  language: 'Dil',
  latestRates: 'Suriye lirası cinsinden güncel kurlar',
  currency: 'Para birimi',
  official: 'Resmî (CBS)',
  market: 'Piyasa',
  buy: 'Alış',
  sell: 'Satış',
  mid: 'Orta',
  changeAgainstPreviousDay: 'Önceki güne göre değişim',
  up: 'yükseldi',
  down: 'düştü',
  unchanged: 'değişmedi',
  effectiveManual: 'Geçerli kur (elle belirlenmiş)',
  dataTime: 'Veri zamanı',
  stale: 'Bazı veriler güncel değil: {sources} bir süredir güncellenmedi.',
  demo: 'Demo verisi: bu kurlar hizmeti denemek için üretilmiştir. Karar vermek için kullanmayın.',
  loadFailed: 'Hizmete ulaşılamadı; en son alınan veriler gösteriliyor. Her dakika yeniden deneniyor.',
  noData: 'Henüz veri yok',
  crossRates: 'ABD doları çapraz kurları',
  oneUsd: '1 USD =',
  crypto: 'Kripto paralar (USD)',
  price: 'Fiyat',
  change24h: '24 saatlik değişim',
  gold: 'Altın',
  karat: '{karat} ayar',
  perOunce: 'Ons (USD)',
  perGram: 'Gram (USD)',
  gramInSyp: 'Gram (SYP)',
  history: 'Geçmiş',
  source: 'Kaynak',
  range: 'Dönem',
  days: '{days} gün',
  chartType: 'Grafik türü',
  line: 'Çizgi',
  ohlc: 'OHLC (mum)',
  date: 'Tarih',
  open: 'Açılış',
  high: 'En yüksek',
  low: 'En düşük',
  close: 'Kapanış',
  dataTable: 'Grafik verileri tablo olarak',
  redenominationNote: '{date} öncesindeki değerler, o tarihte yapılan para reformuyla çıkarılan yeni Suriye lirasına çevrilmiştir.',
  converter: 'Çevirici',
  amount: 'Tutar',
  from: 'Kaynak para',
  to: 'Hedef para',
  swap: 'Para birimlerini değiştir',
  result: 'Sonuç',
  atEffectiveRate: 'Geçerli kurla 1 {currency} = {rate} SYP',
  invalidAmount: 'Bir sayı girin, örneğin 100 veya 2,5',
  api: 'JSON API',
  apiDocs: 'API belgeleri',
};

const ku: Messages = {
  title: 'نرخی ئاڵوگۆڕی لیرەی سووری',
  lead: 'نرخی فەرمی (بانکی ناوەندیی سووریا) و نرخی بازاڕ، دراوی دیجیتاڵی و زێڕ. بەخۆڕایی، بێ هەژمار.',
  skipToContent: 'بڕۆ بۆ نرخەکان',
  language: 'زمان',
  latestRates: 'نوێترین نرخەکان بە لیرەی سووری',
  currency: 'دراو',
  official: 'فەرمی (CBS)',
  market: 'بازاڕ',
  buy: 'کڕین',
  sell: 'فرۆشتن',
  mid: 'ناوەند',
  changeAgainstPreviousDay: 'گۆڕان بە بەراورد بە ڕۆژی پێشوو',
  up: 'بەرزبوونەوە',
  down: 'دابەزین',
  unchanged: 'نەگۆڕاو',
  effectiveManual: 'نرخی کارپێکراو (دەستکاریی دەستی)',
  dataTime: 'کاتی داتا',
  stale: 'هەندێک داتا کۆنە: {sources} ماوەیەکە نوێ نەکراوەتەوە.',
  demo: 'داتای تاقیکاری: ئەم نرخانە بۆ تاقیکردنەوەی خزمەتگوزارییەکە دروستکراون. بۆ بڕیاردان بەکاریان مەهێنە.',
  loadFailed: 'نەتوانرا بگەینە خزمەتگوزارییەکە؛ دوایین داتای گەیشتوو پیشان دەدرێت. هەموو خولەکێک دووبارە هەوڵ دەدرێتەوە.',
  noData: 'هێشتا داتا نییە',
  crossRates: 'نرخی دراوەکان بەرامبەر دۆلاری ئەمریکی',
  oneUsd: '1 دۆلار =',
  crypto: 'دراوی دیجیتاڵی (دۆلار)',
  price: 'نرخ',
  change24h: 'گۆڕانی 24 کاتژمێر',
  gold: 'زێڕ',
  karat: 'عەیار {karat}',
  perOunce: 'ئۆنس (دۆلار)',
  perGram: 'گرام (دۆلار)',
  gramInSyp: 'گرام (لیرە)',
  history: 'مێژووی نرخ',
  source: 'سەرچاوە',
  range: 'ماوە',
  days: '{days} ڕۆژ',
  chartType: 'جۆری هێڵکاری',
  line: 'هێڵ',
  ohlc: 'OHLC (مۆم)',
  date: 'ڕێکەوت',
  open: 'کردنەوە',
  high: 'بەرزترین',
  low: 'نزمترین',
  close: 'داخستن',
  dataTable: 'داتای هێڵکاری وەک خشتە',
  redenominationNote: 'بەهاکانی پێش {date} گۆڕدراون بۆ لیرەی سووریی نوێ کە لەو ڕێکەوتەدا دەرچوو.',
  converter: 'گۆڕەر',
  amount: 'بڕ',
  from: 'لە',
  to: 'بۆ',
  swap: 'گۆڕینەوەی دراوەکان',
  result: 'ئەنجام',
  atEffectiveRate: 'بە نرخی کارپێکراو 1 {currency} = {rate} لیرە',
  invalidAmount: 'ژمارەیەک بنووسە، بۆ نموونە 100 یان 2.5',
  api: 'JSON API',
  apiDocs: 'بەڵگەنامەی API',
};

const kmr: Messages = {
  title: 'Rêjeyên danûstandinê yên lîreya Sûrî',
  lead: 'Rêjeyên fermî (Banka Navendî ya Sûriyê) û yên bazarê, dirafên dîjîtal û zêr. Belaş, bê hesab.',
  skipToContent: 'Here ser rêjeyan',
  language: 'Ziman',
  latestRates: 'Rêjeyên herî dawî bi lîreya Sûrî',
  currency: 'Diraf',
  official: 'Fermî (CBS)',
  market: 'Bazar',
  buy: 'Kirîn',
  sell: 'Firotin',
  mid: 'Navîn',
  changeAgainstPreviousDay: 'Guhertin li gorî roja berê',
  up: 'bilind bû',
  down: 'daket',
  unchanged: 'neguherî',
  effectiveManual: 'Rêjeya derbasdar (bi destan hatiye danîn)',
  dataTime: 'Dema daneyan',
  stale: 'Hin dane kevn in: {sources} demekê ye nehatiye nûkirin.',
  demo: 'Daneyên demo: ev rêje ji bo ceribandina xizmetê hatine çêkirin. Ji bo biryaran bi kar neyînin.',
  loadFailed: 'Xizmet nayê gihîştin; daneyên dawî têne nîşandan. Her deqîqe dîsa tê ceribandin.',
  noData: 'Hîn dane tune ne',
  crossRates: 'Rêjeyên li hember dolarê Amerîkî',
  oneUsd: '1 USD =',
  crypto: 'Dirafên dîjîtal (USD)',
  price: 'Biha',
  change24h: 'Guhertina 24 saetan',
  gold: 'Zêr',
  karat: '{karat} qirat',
  perOunce: 'Ons (USD)',
  perGram: 'Gram (USD)',
  gramInSyp: 'Gram (SYP)',
  history: 'Dîrok',
  source: 'Çavkanî',
  range: 'Dem',
  days: '{days} roj',
  chartType: 'Cureyê grafîkê',
  line: 'Xêz',
  ohlc: 'OHLC (mûm)',
  date: 'Dîrok',
  open: 'Vekirin',
  high: 'Herî bilind',
  low: 'Herî nizm',
  close: 'Girtin',
  dataTable: 'Daneyên grafîkê wek tablo',
  redenominationNote: 'Nirxên berî {date} bo lîreya Sûrî ya nû hatine guhertin ku wê rojê bi reforma diravî derket.',
  converter: 'Veguherîner',
  amount: 'Mîqdar',
  from: 'Ji',
  to: 'Bo',
  swap: 'Dirafan biguherîne',
  result: 'Encam',
  atEffectiveRate: 'Bi rêjeya derbasdar 1 {currency} = {rate} SYP',
  invalidAmount: 'Hejmarekê binivîse, wek 100 an 2,5',
  api: 'JSON API',
  apiDocs: 'Belgeyên API',
};

export const MESSAGES: Record<Language, Messages> = { ar, en, de, tr, ku, kmr };

/** `{name}` placeholders filled from values; unknown ones are left visible rather than hidden. */
export function fill(template: string, values: Record<string, string | number>): string {
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}
