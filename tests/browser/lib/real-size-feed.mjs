// A data feed of the real network's size and shape, for the browser tests that measure what a
// visitor's browser pays to read it (issue 48): VATSIM's data feed v3
// (data.vatsim.net/v3/vatsim-data.json, every field of its published schema, values of the
// kinds it sends), with about as many pilots, controllers, ATIS and prefiled plans as a busy
// evening has (1,500 pilots and 200 controllers: about 2 MB of JSON). The same feed each
// time (a seeded generator), stamped `at`; `ours` names callsign prefixes and airports whose
// share of it is a facility's on a busy night: a few controllers, an ATIS, a few dozen
// flights.
//
// realSizeFeed(at, { callsigns: ['TJSJ', 'TJZS'], airports: ['TJSJ', 'TJBQ'] }) -> object

const PILOTS = 1500;
const CONTROLLERS = 200;
const ATIS = 100;
const PREFILES = 250;
/** Of the pilots, how many fly to or from our airports. */
const OUR_FLIGHTS = 40;

// mulberry32: a small seeded generator, so that every run reads the same feed.
function generator(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const AIRPORTS = ['KJFK', 'KLAX', 'KORD', 'KATL', 'KMIA', 'KBOS', 'KSFO', 'KSEA', 'KDEN', 'KDFW',
  'EGLL', 'EGKK', 'EHAM', 'EDDF', 'EDDM', 'LFPG', 'LEMD', 'LEBL', 'LIRF', 'LSZH', 'EKCH', 'ESSA',
  'ENGM', 'EFHK', 'EIDW', 'CYYZ', 'CYVR', 'MMMX', 'SBGR', 'SAEZ', 'YSSY', 'YMML', 'NZAA', 'RJTT',
  'RKSI', 'VHHH', 'WSSS', 'OMDB', 'OTHH', 'LTFM', 'UUEE', 'FAOR', 'HECA', 'VIDP', 'ZBAA', 'TNCM',
  'TNCC', 'MDSD', 'MDPC', 'MKJP', 'TBPB', 'TTPP', 'TFFR'];
const TYPES = [['B738', 'M-SDE2E3FGHIRWXY/LB1', 'H/B738/L'], ['A320', 'M-SDE2E3FGHIJ1RWY/LB1', 'A320/L'],
  ['A20N', 'M-SDE3FGHIJ1RWY/LB1', 'A20N/L'], ['B77W', 'H-SDE2E3FGHIJ2J3J4J5M1RWXYZ/LB1D1', 'H/B77W/L'],
  ['A359', 'H-SDE2E3FGHIJ2J3J4J5M1RWXY/LB1D1', 'H/A359/L'], ['C172', 'L-S/C', 'C172/G'],
  ['B789', 'H-SDE2E3FGHIJ2J3J4J5M1RWXYZ/LB1D1', 'H/B789/L'], ['E175', 'M-SDE2E3FGHIRWXY/LB1', 'E175/L'],
  ['CRJ9', 'M-SDE2E3FGHIRWY/LB1', 'CRJ9/L'], ['PA28', 'L-S/C', 'P28A/G']];
const AIRLINES = ['AAL', 'DAL', 'UAL', 'JBU', 'SWA', 'BAW', 'KLM', 'DLH', 'AFR', 'IBE', 'EZY', 'RYR',
  'ACA', 'QFA', 'SIA', 'UAE', 'THY', 'CXP', 'NKS', 'SKW'];
const FIRST = ['Alex', 'Maria', 'John', 'Sofia', 'Liam', 'Emma', 'Noah', 'Olivia', 'Lucas', 'Mia',
  'Mateo', 'Camila', 'Jan', 'Eva', 'Pierre', 'Chloé', 'Kenji', 'Aiko', 'Ravi', 'Priya'];
const LAST = ['Smith', 'García', 'Müller', 'Rossi', 'Dubois', 'de Vries', 'Johansson', 'Nowak',
  'Tanaka', 'Kim', 'Silva', 'Hernández', 'Brown', 'Wilson', 'Martin', 'Jansen', 'Novak', 'Patel'];
const FIXES = ['SHIPP', 'LUCTI', 'HANRI', 'KEEKA', 'ZQA', 'BEXER', 'DOVEY', 'SAVIK', 'AVAST', 'OKONU',
  'SKARP', 'PIREX', 'ETEBO', 'KANNI', 'MUNEY', 'DIDON', 'GEECE', 'RESQE', 'BOBTU', 'JAROM'];
const AIRWAYS = ['L453', 'M201', 'Y280', 'A699', 'UL612', 'N57', 'UM184', 'T213', 'Q100', 'J174'];

const two = (n) => String(n).padStart(2, '0');
const stamp = (ms) => new Date(ms).toISOString().replace(/\.\d+Z$/, '.0000000Z');

export function realSizeFeed(at, ours) {
  const random = generator(48);
  const pick = (list) => list[Math.floor(random() * list.length)];
  const int = (low, high) => low + Math.floor(random() * (high - low + 1));
  const name = () => `${pick(FIRST)} ${pick(LAST)}`;
  const cid = () => int(810000, 1899999);
  const logon = () => stamp(at - int(5, 600) * 60e3);
  const updated = () => stamp(at - int(0, 15) * 1e3);
  const route = () => Array.from({ length: int(10, 110) }, (_, i) => (i % 2 ? pick(AIRWAYS) : pick(FIXES))).join(' ');
  const plan = (departure, arrival) => {
    const [short, equipment, faa] = pick(TYPES);
    return {
      flight_rules: short === 'C172' || short === 'PA28' ? 'V' : 'I',
      aircraft: `${short}/${equipment}`,
      aircraft_faa: faa,
      aircraft_short: short,
      departure,
      arrival,
      alternate: pick(AIRPORTS),
      cruise_tas: String(int(110, 490)),
      altitude: String(int(30, 410) * 100),
      deptime: `${two(int(0, 23))}${two(int(0, 59))}`,
      enroute_time: `${two(int(0, 14))}${two(int(0, 59))}`,
      fuel_time: `${two(int(1, 16))}${two(int(0, 59))}`,
      remarks: `PBN/A1B1C1D1L1O1S1 DOF/${new Date(at).toISOString().slice(2, 10).replace(/-/g, '')} ` +
        `REG/N${int(100, 999)}${pick(['AA', 'JB', 'DL', 'UA'])} EET/${pick(AIRPORTS).slice(0, 2)}FIR${two(int(0, 9))}${two(int(0, 59))} ` +
        `OPR/${pick(AIRLINES)} PER/C NAV/RNVD1E2A1 DAT/1FANSP SUR/RSP180 ORGN/K${pick(FIXES)}X ` +
        `SEL/${pick(FIXES).slice(0, 4)} CODE/A${int(10000, 99999)} RVR/75 RMK/TCAS SIMBRIEF /V/`,
      route: route(),
      revision_id: int(0, 4),
      assigned_transponder: String(int(1000, 7777)),
    };
  };
  const pilots = [];
  for (let i = 0; i < PILOTS; i++) {
    // A few dozen of ours (to or from our airports), a few with no plan filed, the rest elsewhere.
    let departure = pick(AIRPORTS);
    let arrival = pick(AIRPORTS);
    if (i < OUR_FLIGHTS && ours.airports.length) {
      if (i % 2) arrival = ours.airports[i % ours.airports.length];
      else departure = ours.airports[i % ours.airports.length];
    }
    pilots.push({
      cid: cid(),
      name: name(),
      callsign: `${pick(AIRLINES)}${int(1, 9999)}`,
      server: pick(['USA-EAST', 'USA-WEST', 'GERMANY', 'UK', 'CANADA', 'SINGAPORE', 'AUTOMATIC']),
      pilot_rating: pick([0, 0, 1, 3, 7]),
      military_rating: 0,
      latitude: Number((random() * 140 - 60).toFixed(5)),
      longitude: Number((random() * 360 - 180).toFixed(5)),
      altitude: int(0, 41000),
      groundspeed: int(0, 520),
      transponder: String(int(1000, 7777)),
      heading: int(0, 359),
      qnh_i_hg: Number((29 + random()).toFixed(2)),
      qnh_mb: int(990, 1030),
      flight_plan: i % 25 === 24 ? null : plan(departure, arrival),
      logon_time: logon(),
      last_updated: updated(),
    });
  }
  const positions = ['DEL', 'GND', 'TWR', 'APP', 'DEP', 'CTR', 'FSS'];
  const facilityOf = { DEL: 2, GND: 3, TWR: 4, APP: 5, DEP: 5, CTR: 6, FSS: 1 };
  const controller = (callsign) => ({
    cid: cid(),
    name: name(),
    callsign,
    frequency: `1${int(18, 35)}.${pick(['000', '050', '100', '250', '400', '725', '850'])}`,
    facility: facilityOf[callsign.split('_').pop()] ?? 0,
    rating: int(2, 10),
    server: pick(['USA-EAST', 'GERMANY', 'UK', 'CANADA']),
    visual_range: pick([0, 50, 150, 300, 600]),
    text_atis: random() < 0.7 ? [`${callsign.split('_')[0]} ${pick(['Tower', 'Approach', 'Center', 'Ground'])}`,
      'Charts at chartfox.org', `Online until ${two(int(0, 23))}00z`, 'Feedback welcome at our website'] : null,
    last_updated: updated(),
    logon_time: logon(),
  });
  const controllers = [];
  // Ours: a position of each prefix (observers and others' positions are the rest).
  for (const prefix of ours.callsigns) {
    controllers.push(controller(`${prefix}_APP`), controller(`${prefix}_TWR`));
  }
  while (controllers.length < CONTROLLERS) {
    const suffix = random() < 0.1 ? 'OBS' : pick(positions);
    const prefix = random() < 0.5 ? pick(AIRPORTS) : pick(AIRPORTS).slice(1);
    const callsign = `${prefix}${random() < 0.2 ? `_${int(1, 9)}` : ''}_${suffix}`;
    const one = controller(callsign);
    if (suffix === 'OBS') one.facility = 0;
    controllers.push(one);
  }
  const atis = [];
  for (let i = 0; i < ATIS; i++) {
    const airport = i === 0 && ours.airports.length ? ours.airports[0] : pick(AIRPORTS);
    const letter = String.fromCharCode(65 + int(0, 25));
    atis.push({
      ...controller(`${airport}${i > 60 ? `_${pick(['D', 'A'])}` : ''}_ATIS`),
      facility: 4,
      atis_code: letter,
      text_atis: [`${airport} INFORMATION ${letter} ${two(int(0, 23))}${two(int(0, 59))}Z`,
        `${two(int(0, 36))}0${two(int(3, 25))}KT 9999 FEW0${int(15, 45)} ${int(10, 32)}/${int(5, 25)} Q${int(995, 1030)}`,
        `ARRIVALS EXPECT ILS APPROACH RUNWAY ${two(int(1, 36))}L. DEPARTURES RUNWAY ${two(int(1, 36))}R.`,
        'TRANSITION LEVEL 70. ACKNOWLEDGE RECEIPT OF INFORMATION ON FIRST CONTACT.'],
    });
  }
  const prefiles = Array.from({ length: PREFILES }, () => ({
    cid: cid(), name: name(), callsign: `${pick(AIRLINES)}${int(1, 9999)}`,
    flight_plan: plan(pick(AIRPORTS), pick(AIRPORTS)), last_updated: updated(),
  }));
  const servers = ['USA-EAST', 'USA-WEST', 'GERMANY', 'UK', 'CANADA', 'SINGAPORE', 'AUTOMATIC'].map((ident) => ({
    ident, hostname_or_ip: `${ident.toLowerCase()}.example.net`, location: ident, name: ident,
    clients_connection_allowed: 1, client_connections_allowed: true, is_sweatbox: false,
  }));
  const date = new Date(at);
  return {
    general: {
      version: 3,
      reload: 1,
      update: `${date.getUTCFullYear()}${two(date.getUTCMonth() + 1)}${two(date.getUTCDate())}` +
        `${two(date.getUTCHours())}${two(date.getUTCMinutes())}${two(date.getUTCSeconds())}`,
      update_timestamp: stamp(at),
      connected_clients: pilots.length + controllers.length + atis.length,
      unique_users: pilots.length + controllers.length + atis.length - 40,
    },
    pilots,
    controllers,
    atis,
    servers,
    prefiles,
    facilities: ['OBS', 'FSS', 'DEL', 'GND', 'TWR', 'APP', 'CTR'].map((short, id) => ({ id, short, long_name: short })),
    ratings: [[-1, 'INA'], [0, 'SUS'], [1, 'OBS'], [2, 'S1'], [3, 'S2'], [4, 'S3'], [5, 'C1'], [6, 'C2'],
      [7, 'C3'], [8, 'I1'], [9, 'I2'], [10, 'I3'], [11, 'SUP'], [12, 'ADM']]
      .map(([id, short]) => ({ id, short_name: short, long_name: short })),
    pilot_ratings: [[0, 'NEW'], [1, 'PPL'], [3, 'IR'], [7, 'CMEL'], [15, 'ATPL']]
      .map(([id, short]) => ({ id, short_name: short, long_name: short })),
    military_ratings: [[0, 'M0'], [1, 'M1'], [3, 'M2'], [7, 'M3'], [15, 'M4']]
      .map(([id, short]) => ({ id, short_name: short, long_name: short })),
  };
}
