/**
 * Ordinary names, to measure how often screening flags someone who is not listed: common first and
 * last names of many countries (the names themselves are written here, not copied from a data set),
 * combined by a seeded generator so that every run screens the same names. A tenth are businesses
 * named after a surname or a place, as small firms are.
 */

const FIRST = [
  // English-speaking
  'James', 'John', 'Robert', 'Michael', 'William', 'David', 'Richard', 'Joseph', 'Thomas', 'Charles', 'Mary', 'Patricia', 'Jennifer', 'Linda',
  'Elizabeth', 'Barbara', 'Susan', 'Jessica', 'Sarah', 'Karen', 'Emily', 'Olivia', 'Jack', 'Harry', 'George', 'Oliver', 'Sophie', 'Chloe',
  // Spanish, Portuguese
  'Jose', 'Juan', 'Carlos', 'Luis', 'Miguel', 'Javier', 'Maria', 'Carmen', 'Ana', 'Lucia', 'Sofia', 'Joao', 'Pedro', 'Paulo', 'Fernanda', 'Beatriz',
  // German, Dutch, Nordic
  'Lukas', 'Felix', 'Jonas', 'Hans', 'Klaus', 'Anna', 'Lena', 'Katharina', 'Jan', 'Pieter', 'Sanne', 'Lars', 'Erik', 'Ingrid', 'Astrid',
  // French, Italian
  'Pierre', 'Louis', 'Camille', 'Julien', 'Nicolas', 'Marie', 'Claire', 'Giuseppe', 'Marco', 'Giulia', 'Francesca', 'Alessandro', 'Luca', 'Chiara',
  // Polish, Czech, Ukrainian, Russian
  'Piotr', 'Krzysztof', 'Tomasz', 'Agnieszka', 'Katarzyna', 'Jiri', 'Petra', 'Olena', 'Andriy', 'Dmitry', 'Sergei', 'Natalia', 'Irina', 'Alexei', 'Olga',
  // Turkish, Arabic, Persian
  'Mehmet', 'Mustafa', 'Ayse', 'Fatma', 'Emre', 'Mohammed', 'Ahmed', 'Ali', 'Omar', 'Fatima', 'Aisha', 'Youssef', 'Khalid', 'Layla', 'Reza', 'Maryam',
  // South Asian
  'Rahul', 'Amit', 'Priya', 'Anjali', 'Sanjay', 'Deepak', 'Sunita', 'Ravi', 'Arjun', 'Imran', 'Ayesha', 'Farhan',
  // East and South-East Asian
  'Wei', 'Jing', 'Li', 'Hao', 'Xiaoming', 'Mei', 'Hiroshi', 'Yuki', 'Haruto', 'Sakura', 'Minjun', 'Jiwoo', 'Seoyeon', 'Minh', 'Linh', 'Thanh',
  // African
  'Chinedu', 'Ngozi', 'Oluwaseun', 'Amina', 'Kwame', 'Abena', 'Tendai', 'Thabo', 'Zanele', 'Wanjiru', 'Kofi', 'Emeka', 'Fatou', 'Moussa', 'Aminata',
];

const LAST = [
  'Smith', 'Johnson', 'Williams', 'Brown', 'Jones', 'Miller', 'Davis', 'Wilson', 'Anderson', 'Taylor', 'Thomas', 'Moore', 'Martin', 'Jackson',
  'White', 'Harris', 'Clark', 'Lewis', 'Walker', 'Hall', 'Young', 'King', 'Wright', 'Scott', 'Green', 'Baker', 'Evans', 'Murphy', 'Kelly',
  'Garcia', 'Rodriguez', 'Martinez', 'Hernandez', 'Lopez', 'Gonzalez', 'Perez', 'Sanchez', 'Ramirez', 'Torres', 'Flores', 'Silva', 'Santos',
  'Oliveira', 'Pereira', 'Costa', 'Ferreira', 'Muller', 'Schmidt', 'Schneider', 'Fischer', 'Weber', 'Meyer', 'Wagner', 'Becker', 'Hoffmann',
  'de Jong', 'Jansen', 'Bakker', 'Visser', 'Hansen', 'Johansson', 'Andersson', 'Nielsen', 'Dubois', 'Bernard', 'Moreau', 'Laurent', 'Lefebvre',
  'Rossi', 'Russo', 'Ferrari', 'Esposito', 'Bianchi', 'Romano', 'Ricci', 'Nowak', 'Kowalski', 'Wisniewski', 'Wojcik', 'Novak', 'Svoboda',
  'Shevchenko', 'Kovalenko', 'Bondarenko', 'Ivanov', 'Smirnov', 'Kuznetsov', 'Popov', 'Sokolov', 'Petrova', 'Yilmaz', 'Kaya', 'Demir', 'Sahin',
  'Celik', 'Hassan', 'Hussein', 'Ibrahim', 'Abdullah', 'Mahmoud', 'Saleh', 'Haddad', 'Khoury', 'Mansour', 'Karimi', 'Hosseini', 'Rahimi',
  'Sharma', 'Patel', 'Singh', 'Kumar', 'Gupta', 'Reddy', 'Iyer', 'Khan', 'Chaudhry', 'Rahman', 'Wang', 'Zhang', 'Liu', 'Chen', 'Yang', 'Huang',
  'Zhao', 'Wu', 'Zhou', 'Tanaka', 'Suzuki', 'Takahashi', 'Watanabe', 'Kim', 'Lee', 'Park', 'Choi', 'Nguyen', 'Tran', 'Pham', 'Le',
  'Okafor', 'Okonkwo', 'Adeyemi', 'Balogun', 'Mensah', 'Owusu', 'Moyo', 'Ndlovu', 'Dlamini', 'Kamau', 'Mwangi', 'Diallo', 'Traore', 'Keita',
];

const BUSINESS_WORDS = ['Trading', 'Consulting', 'Logistics', 'Foods', 'Textiles', 'Holdings', 'Design Studio', 'Motors', 'Pharmacy', 'Construction', 'Bakery', 'Imports'];
const BUSINESS_FORMS = ['Ltd', 'LLC', 'GmbH', 'SARL', 'BV', '& Sons', 'Inc', ''];

/** A small deterministic generator (the same names every run). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

export interface OrdinaryName {
  name: string;
  kind: 'individual' | 'business';
}

/** `count` ordinary names, the same ones for the same seed: a fifth with a middle name, a tenth businesses. */
export function ordinaryNames(count: number, seed = 2026): OrdinaryName[] {
  const rnd = random(seed);
  const pick = (list: readonly string[]) => list[Math.floor(rnd() * list.length)] as string;
  const out: OrdinaryName[] = [];
  for (let i = 0; i < count; i++) {
    const roll = rnd();
    if (roll < 0.1) {
      out.push({ name: `${pick(LAST)} ${pick(BUSINESS_WORDS)} ${pick(BUSINESS_FORMS)}`.trim(), kind: 'business' });
    } else if (roll < 0.3) {
      out.push({ name: `${pick(FIRST)} ${pick(FIRST)} ${pick(LAST)}`, kind: 'individual' });
    } else {
      out.push({ name: `${pick(FIRST)} ${pick(LAST)}`, kind: 'individual' });
    }
  }
  return out;
}
