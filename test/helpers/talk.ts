// A plausible ~3.5-minute podcast monologue for the highlight and copy tests. Most of it is flat
// housekeeping; two stretches are written the way clips that travel are: a question or a number up
// front, charged words, and a conclusion at the end. Sentence indexes are referenced by the tests.
export const TALK: string[] = [
  // 0-5: housekeeping, opens on a dangling "This"
  'This is the part of the show where we go over the schedule for the rest of the week.',
  'The Tuesday session moves to the room on the second floor of the library.',
  'After that we look at the budget sheet line by line with the team.',
  'The printer in the office still needs a new cartridge before Friday.',
  'Lunch will be in the usual place near the front desk.',
  'We will send the notes by email once the meeting is over.',
  // 6-11: strong: question + number + surprise + emotion, payoff at the end
  'Why do ninety percent of new restaurants fail in their first year?',
  'The truth is, it is almost never the food.',
  'Most owners absolutely love cooking, but they are terrified of the numbers.',
  'I watched a brilliant chef lose everything because nobody told her what her rent really cost per plate.',
  'It was heartbreaking, and it was completely avoidable.',
  'That is why the best chefs I know hire an accountant before they hire a cook.',
  // 12-17: flat description
  'The kitchen has two ovens along the back wall and a walk-in fridge.',
  'Deliveries arrive in the morning through the side door on the left.',
  'The menu changes with the season and the staff rotate shifts every week.',
  'There is a small office above the dining room with a desk and a filing cabinet.',
  'The dining room seats about forty people on a normal evening.',
  'Parking is available on the street behind the building after six.',
  // 18-23: second strong-ish stretch: direct address + contrast + payoff
  'Here is the mistake you are probably making with your own savings.',
  'You think a budget is about cutting the things you enjoy, but it is actually the opposite.',
  'A good budget tells you exactly how much you can spend on what you love without any guilt.',
  'When I finally tried it, I was shocked at how much money I was wasting on things I hated.',
  'Subscriptions I forgot about, fees I never noticed, and takeaway I did not even enjoy.',
  'So remember, spend without guilt on what you love and cut the rest.',
  // 24-29: flat wrap-up, opens with "And"
  'And that brings us to the end of the notes for today.',
  'The recording will be available on the website later this week.',
  'The next episode is about the history of the local market hall.',
  'Our guest is a historian from the city archive who wrote a book about it.',
  'The book is available in the library on the ground floor.',
  'Thanks to everyone who sent in questions by email this month.',
];
