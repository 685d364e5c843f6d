package simulator

// The simulated world: fictional countries, cities, people, clubs and
// companies, with real assets and central banks. Place names are Italianate
// and end in a vowel, so they take no article in French ("à Montevento") and
// stay indeclinable in Russian ("в Монтевенто", "мэра Риомаре"): the
// templates can use them anywhere in a sentence.

func w(key string, text tr) word { return word{key: key, text: text} }

var countries = &pool{"countries", []word{
	w("montevento", latin("Montevento", "Монтевенто")),
	w("valmareno", latin("Valmareno", "Вальмарено")),
	w("castelverde", latin("Castelverde", "Кастельверде")),
	w("san-aurelio", latin("San Aurelio", "Сан-Аурелио")),
	w("belmonte", latin("Belmonte", "Бельмонте")),
	w("porto-salvo", latin("Porto Salvo", "Порто-Сальво")),
	w("lindaveri", latin("Lindaveri", "Линдавери")),
	w("terrasolo", latin("Terrasolo", "Террасоло")),
	w("marcadero", latin("Marcadero", "Маркадеро")),
	w("solvento", latin("Solvento", "Сольвенто")),
}}

var cities = &pool{"cities", []word{
	w("riomare", latin("Riomare", "Риомаре")),
	w("altaverde", latin("Altaverde", "Альтаверде")),
	w("costabello", latin("Costabello", "Костабелло")),
	w("lagomaro", latin("Lagomaro", "Лагомаро")),
	w("pietralto", latin("Pietralto", "Пьетральто")),
	w("serramonte", latin("Serramonte", "Серрамонте")),
	w("marisole", latin("Marisole", "Марисоле")),
	w("vallombroso", latin("Vallombroso", "Валломброзо")),
	w("fontenero", latin("Fontenero", "Фонтенеро")),
	w("borgoselvo", latin("Borgoselvo", "Боргосельво")),
}}

// persons are fictional politicians.
var persons = &pool{"persons", []word{
	w("aurelia-montane", latin("Aurelia Montane", "Аурелия Монтане")),
	w("dario-velasti", latin("Dario Velasti", "Дарио Веласти")),
	w("helena-crost", latin("Helena Crost", "Хелена Крост")),
	w("matteo-ravel", latin("Matteo Ravel", "Маттео Равель")),
	w("sofia-brandt-lucero", latin("Sofia Brandt-Lucero", "София Брандт-Лусеро")),
	w("jonas-kettering", latin("Jonas Kettering", "Йонас Кеттеринг")),
	w("clara-ventimiglia", latin("Clara Ventimiglia", "Клара Вентимилья")),
	w("rafael-corvina", latin("Rafael Corvina", "Рафаэль Корвина")),
	w("nadia-lorne", latin("Nadia Lorne", "Надя Лорн")),
	w("viktor-almeda", latin("Viktor Almeda", "Виктор Альмеда")),
	w("lucia-fenwick", latin("Lucia Fenwick", "Лусия Фенвик")),
	w("anselm-dravic", latin("Anselm Dravić", "Ансельм Дравич")),
	w("paola-serrat", latin("Paola Serrat", "Паола Серрат")),
	w("emil-castellane", latin("Emil Castellane", "Эмиль Кастеллан")),
	w("irene-maddox", latin("Irene Maddox", "Ирэн Мэддокс")),
	w("bruno-talavera", latin("Bruno Talavera", "Бруно Талавера")),
	w("teodora-vance", latin("Teodora Vance", "Теодора Вэнс")),
	w("oskar-lindqvist", latin("Oskar Lindqvist", "Оскар Линдквист")),
}}

var parties = &pool{"parties", []word{
	w("civic-renewal", tx("Civic Renewal", "Renovación Cívica", "Renovação Cívica", "Renouveau civique", "Bürgerliche Erneuerung", "Burgerlijke Vernieuwing", "Гражданское обновление")),
	w("green-alliance", tx("Green Alliance", "Alianza Verde", "Aliança Verde", "Alliance verte", "Grüne Allianz", "Groene Alliantie", "Зелёный альянс")),
	w("liberal-forum", tx("Liberal Forum", "Foro Liberal", "Fórum Liberal", "Forum libéral", "Liberales Forum", "Liberaal Forum", "Либеральный форум")),
	w("social-democratic-union", tx("Social Democratic Union", "Unión Socialdemócrata", "União Social-Democrata", "Union sociale-démocrate", "Sozialdemokratische Union", "Sociaaldemocratische Unie", "Социал-демократический союз")),
	w("national-concord", tx("National Concord", "Concordia Nacional", "Concórdia Nacional", "Concorde nationale", "Nationale Eintracht", "Nationale Eendracht", "Национальное согласие")),
	w("forward", tx("Forward", "Adelante", "Avante", "En avant", "Vorwärts", "Voorwaarts", "Вперёд")),
	w("rural-alliance", tx("Rural Alliance", "Alianza Rural", "Aliança Rural", "Alliance rurale", "Ländliche Allianz", "Plattelandsalliantie", "Сельский альянс")),
	w("digital-future", tx("Digital Future", "Futuro Digital", "Futuro Digital", "Avenir numérique", "Digitale Zukunft", "Digitale Toekomst", "Цифровое будущее")),
}}

// topics are referendum questions, written as the heading of a ballot.
var topics = &pool{"topics", []word{
	w("voting-age", tx("Lowering the voting age to 16", "Rebajar la edad de voto a 16 años", "Reduzir a idade de voto para 16 anos", "Abaisser l'âge du droit de vote à 16 ans", "Wahlrecht ab 16", "Stemrecht vanaf 16 jaar", "Снижение возраста голосования до 16 лет")),
	w("four-day-week", tx("A four-day working week", "La semana laboral de cuatro días", "A semana de trabalho de quatro dias", "La semaine de quatre jours", "Die Viertagewoche", "De vierdaagse werkweek", "Четырёхдневная рабочая неделя")),
	w("constitution", tx("A new constitution", "Una nueva constitución", "Uma nova constituição", "Une nouvelle constitution", "Eine neue Verfassung", "Een nieuwe grondwet", "Новая конституция")),
	w("currency-union", tx("Joining the regional currency union", "La adhesión a la unión monetaria regional", "A adesão à união monetária regional", "L'adhésion à l'union monétaire régionale", "Der Beitritt zur regionalen Währungsunion", "Toetreding tot de regionale muntunie", "Вступление в региональный валютный союз")),
	w("nuclear-phase-out", tx("Phasing out nuclear power by 2035", "El abandono de la energía nuclear en 2035", "O abandono da energia nuclear até 2035", "La sortie du nucléaire d'ici 2035", "Der Atomausstieg bis 2035", "Het uitfaseren van kernenergie tegen 2035", "Отказ от атомной энергетики к 2035 году")),
	w("compulsory-voting", tx("Compulsory voting", "El voto obligatorio", "O voto obrigatório", "Le vote obligatoire", "Die Wahlpflicht", "De opkomstplicht", "Обязательное голосование")),
}}

var clubs = &pool{"clubs", []word{
	w("riomare-fc", latin("Riomare FC", "ФК «Риомаре»")),
	w("altaverde-united", latin("Altaverde United", "«Альтаверде Юнайтед»")),
	w("sporting-costabello", latin("Sporting Costabello", "«Спортинг Костабелло»")),
	w("lagomaro-athletic", latin("Lagomaro Athletic", "«Лагомаро Атлетик»")),
	w("pietralto-rovers", latin("Pietralto Rovers", "«Пьетральто Роверс»")),
	w("serramonte-city", latin("Serramonte City", "«Серрамонте Сити»")),
	w("marisole-wanderers", latin("Marisole Wanderers", "«Марисоле Уондерерс»")),
	w("fontenero-1907", latin("Fontenero 1907", "«Фонтенеро 1907»")),
	w("borgoselvo-albion", latin("Borgoselvo Albion", "«Боргосельво Альбион»")),
	w("dynamo-vallombroso", latin("Dynamo Vallombroso", "«Динамо Валломброзо»")),
}}

var cups = &pool{"cups", []word{
	w("national-cup", tx("National Cup", "Copa Nacional", "Copa Nacional", "Coupe nationale", "Landespokal", "Nationale Beker", "Национальный кубок")),
	w("league-cup", tx("League Cup", "Copa de la Liga", "Copa da Liga", "Coupe de la Ligue", "Ligapokal", "Ligabeker", "Кубок лиги")),
	w("super-cup", tx("Super Cup", "Supercopa", "Supercopa", "Supercoupe", "Supercup", "Supercup", "Суперкубок")),
	w("coastal-champions-cup", tx("Coastal Champions Cup", "Copa de Campeones de la Costa", "Copa dos Campeões do Litoral", "Coupe des champions du littoral", "Pokal der Küstenmeister", "Kustkampioenenbeker", "Кубок чемпионов побережья")),
}}

// athletes are fictional men's tennis players and runners.
var athletes = &pool{"athletes", []word{
	w("kenji-arata", latin("Kenji Arata", "Кэндзи Арата")),
	w("lucas-brenner", latin("Lucas Brenner", "Лукас Бреннер")),
	w("mateo-quiroga", latin("Mateo Quiroga", "Матео Кирога")),
	w("samuel-okoro", latin("Samuel Okoro", "Сэмюэл Окоро")),
	w("anders-holm", latin("Anders Holm", "Андерс Хольм")),
	w("yusuf-demirel", latin("Yusuf Demirel", "Юсуф Демирель")),
	w("tobias-renn", latin("Tobias Renn", "Тобиас Ренн")),
	w("diego-almansa", latin("Diego Almansa", "Диего Альманса")),
	w("hugo-marchetti", latin("Hugo Marchetti", "Уго Маркетти")),
	w("ivan-petrak", latin("Ivan Petrak", "Иван Петрак")),
}}

// asset returns a crypto asset with its ticker and the range of its price
// (in units of 10^-decimals US dollars) and of the steps between ranges.
func asset(key string, name tr, ticker string, min, max, step int64, decimals int) word {
	return word{
		key: key, text: name,
		forms: map[string]tr{"ticker": same(ticker)},
		scale: numSpec{min: min, max: max, step: step, decimals: decimals, unit: usd},
	}
}

var assets = &pool{"assets", []word{
	asset("bitcoin", latin("Bitcoin", "Биткоин"), "BTC", 60000, 120000, 2500, 0),
	asset("ethereum", latin("Ethereum", "Эфириум"), "ETH", 1500, 5000, 100, 0),
	asset("solana", latin("Solana", "Солана"), "SOL", 80, 300, 10, 0),
	asset("xrp", same("XRP"), "XRP", 50, 350, 10, 2),
	asset("dogecoin", latin("Dogecoin", "Догикоин"), "DOGE", 60, 400, 5, 3),
}}

var chains = &pool{"chains", []word{
	w("lumen-chain", same("Lumen Chain")),
	w("arcadia-network", same("Arcadia Network")),
	w("parallax", same("Parallax")),
	w("corvid-protocol", same("Corvid Protocol")),
	w("meridian", same("Meridian")),
}}

var codenames = &pool{"codenames", []word{
	w("aurora", same("Aurora")),
	w("basalt", same("Basalt")),
	w("cirrus", same("Cirrus")),
	w("dynamo", same("Dynamo")),
	w("ember", same("Ember")),
	w("fjord", same("Fjord")),
}}

// bank returns a central bank: its name for headings, "{bank.the}" the name
// as the subject inside a sentence (with its article where the language
// needs one).
func bank(key string, name, the tr) word {
	return word{key: key, text: name, forms: map[string]tr{"the": the}}
}

var banks = &pool{"banks", []word{
	bank("fed",
		tx("Federal Reserve", "Reserva Federal", "Federal Reserve", "Réserve fédérale", "US-Notenbank Fed", "Federal Reserve", "ФРС"),
		tx("the Federal Reserve", "la Reserva Federal", "o Federal Reserve", "la Réserve fédérale", "die US-Notenbank Fed", "de Federal Reserve", "ФРС")),
	bank("ecb",
		tx("European Central Bank", "Banco Central Europeo", "Banco Central Europeu", "Banque centrale européenne", "Europäische Zentralbank", "Europese Centrale Bank", "ЕЦБ"),
		tx("the European Central Bank", "el Banco Central Europeo", "o Banco Central Europeu", "la Banque centrale européenne", "die Europäische Zentralbank", "de Europese Centrale Bank", "ЕЦБ")),
	bank("boe",
		tx("Bank of England", "Banco de Inglaterra", "Banco da Inglaterra", "Banque d'Angleterre", "Bank of England", "Bank of England", "Банк Англии"),
		tx("the Bank of England", "el Banco de Inglaterra", "o Banco da Inglaterra", "la Banque d'Angleterre", "die Bank of England", "de Bank of England", "Банк Англии")),
	bank("boj",
		tx("Bank of Japan", "Banco de Japón", "Banco do Japão", "Banque du Japon", "Bank of Japan", "Bank of Japan", "Банк Японии"),
		tx("the Bank of Japan", "el Banco de Japón", "o Banco do Japão", "la Banque du Japon", "die Bank of Japan", "de Bank of Japan", "Банк Японии")),
}}

// commodity returns a commodity with "{commodity.unit}", the quantity its
// price is quoted for, and the range of its price in US dollars.
func commodity(key string, name, per tr, min, max, step int64) word {
	return word{
		key: key, text: name,
		forms: map[string]tr{"unit": per},
		scale: numSpec{min: min, max: max, step: step, unit: usd},
	}
}

var (
	perBarrel = tx("per barrel", "por barril", "por barril", "le baril", "je Barrel", "per vat", "за баррель")
	perOunce  = tx("per troy ounce", "por onza troy", "por onça troy", "l'once troy", "je Feinunze", "per troy ounce", "за тройскую унцию")
	perTonne  = tx("per tonne", "por tonelada", "por tonelada", "la tonne", "je Tonne", "per ton", "за тонну")
)

var commodities = &pool{"commodities", []word{
	commodity("brent", tx("Brent crude", "Petróleo Brent", "Petróleo Brent", "Pétrole Brent", "Brent-Öl", "Brent-olie", "Нефть Brent"), perBarrel, 60, 100, 2),
	commodity("gold", tx("Gold", "Oro", "Ouro", "Or", "Gold", "Goud", "Золото"), perOunce, 1800, 3600, 50),
	commodity("silver", tx("Silver", "Plata", "Prata", "Argent", "Silber", "Zilver", "Серебро"), perOunce, 20, 45, 1),
	commodity("copper", tx("Copper", "Cobre", "Cobre", "Cuivre", "Kupfer", "Koper", "Медь"), perTonne, 7000, 12000, 250),
}}

var storms = &pool{"storms", []word{
	w("adela", latin("Adela", "Адела")),
	w("bruno", latin("Bruno", "Бруно")),
	w("celia", latin("Celia", "Селия")),
	w("dario", latin("Dario", "Дарио")),
	w("elsa", latin("Elsa", "Эльза")),
	w("fabio", latin("Fabio", "Фабио")),
	w("greta", latin("Greta", "Грета")),
	w("hugo", latin("Hugo", "Уго")),
}}

var companies = &pool{"companies", []word{
	w("nimbus-labs", same("Nimbus Labs")),
	w("orbital-devices", same("Orbital Devices")),
	w("quanta-systems", same("Quanta Systems")),
	w("helix-robotics", same("Helix Robotics")),
	w("vertex-motors", same("Vertex Motors")),
	w("polaris-cloud", same("Polaris Cloud")),
	w("cobalt-semiconductors", same("Cobalt Semiconductors")),
	w("tidewater-electronics", same("Tidewater Electronics")),
}}

// labs are fictional AI labs.
var labs = &pool{"labs", []word{
	w("lumina-ai", same("Lumina AI")),
	w("nimbus-labs", same("Nimbus Labs")),
	w("sable-research", same("Sable Research")),
	w("kepler-intelligence", same("Kepler Intelligence")),
	w("mosaic-minds", same("Mosaic Minds")),
	w("tessellate", same("Tessellate")),
	w("halden-ai", same("Halden AI")),
}}

// product returns a product with "{product.anew}": "a new …" as the object
// of "unveil" (accusative in German and Russian).
func product(key string, name, anew tr) word {
	return word{key: key, text: name, forms: map[string]tr{"anew": anew}}
}

var products = &pool{"products", []word{
	product("foldable-phone",
		tx("Foldable phone", "Teléfono plegable", "Celular dobrável", "Téléphone pliable", "Faltbares Smartphone", "Opvouwbare telefoon", "Складной смартфон"),
		tx("a new foldable phone", "un nuevo teléfono plegable", "um novo celular dobrável", "un nouveau téléphone pliable", "ein neues faltbares Smartphone", "een nieuwe opvouwbare telefoon", "новый складной смартфон")),
	product("ar-glasses",
		tx("AR glasses", "Gafas de realidad aumentada", "Óculos de realidade aumentada", "Lunettes de réalité augmentée", "AR-Brille", "AR-bril", "Очки дополненной реальности"),
		tx("new augmented-reality glasses", "unas nuevas gafas de realidad aumentada", "novos óculos de realidade aumentada", "de nouvelles lunettes de réalité augmentée", "eine neue AR-Brille", "een nieuwe AR-bril", "новые очки дополненной реальности")),
	product("ai-model",
		tx("Flagship AI model", "Modelo de IA insignia", "Modelo de IA de ponta", "Modèle d'IA phare", "KI-Spitzenmodell", "Vlaggenschip-AI-model", "Флагманская модель ИИ"),
		tx("a new flagship AI model", "un nuevo modelo de IA insignia", "um novo modelo de IA de ponta", "un nouveau modèle d'IA phare", "ein neues KI-Spitzenmodell", "een nieuw vlaggenschip-AI-model", "новую флагманскую модель ИИ")),
	product("humanoid-robot",
		tx("Humanoid robot", "Robot humanoide", "Robô humanoide", "Robot humanoïde", "Humanoider Roboter", "Humanoïde robot", "Человекоподобный робот"),
		tx("a humanoid robot", "un robot humanoide", "um robô humanoide", "un robot humanoïde", "einen humanoiden Roboter", "een humanoïde robot", "человекоподобного робота")),
	product("electric-car",
		tx("Electric car", "Coche eléctrico", "Carro elétrico", "Voiture électrique", "Elektroauto", "Elektrische auto", "Электромобиль"),
		tx("a new electric car", "un nuevo coche eléctrico", "um novo carro elétrico", "une nouvelle voiture électrique", "ein neues Elektroauto", "een nieuwe elektrische auto", "новый электромобиль")),
}}

var rockets = &pool{"rockets", []word{
	w("aster-2", same("Aster-2")),
	w("kestrel-heavy", same("Kestrel Heavy")),
	w("borealis", same("Borealis")),
	w("tern-1", same("Tern-1")),
	w("halcyon", same("Halcyon")),
}}

var systems = &pool{"systems", []word{
	w("ferrum-os", same("Ferrum OS")),
	w("nova-os", same("Nova OS")),
	w("skylark", same("Skylark")),
	w("quill", same("Quill")),
}}
